/**
 * What an approval form shows of a call's arguments or a script: the exact text the tool (or
 * engine) will receive, with only the secrets a rule recognizes by their value masked — each
 * marked, and counted — never a value masked for the name it stands under. Text longer than a
 * form page is cut into pages at character boundaries, all of which the person sees; text
 * longer than {@link MAX_APPROVAL_PAGES} pages is not shown at all and the call is refused.
 */
import { maskRecognizedSecrets, type MaskedValue } from '../lifecycle/secret-values.ts';

/** Most UTF-8 bytes of arguments (or script) one form page shows; longer text is paged. */
export const MAX_SHOWN_ARGUMENT_BYTES = 2048;

/**
 * Most pages one approval shows (32 KiB with {@link MAX_SHOWN_ARGUMENT_BYTES}): a person clicks
 * through each, so past this the call is refused with the reason rather than approved unread.
 */
export const MAX_APPROVAL_PAGES = 16;

/** Deeper than this, arguments are not walked for masking (the host's input bound is far shallower). */
const MAX_MASK_DEPTH = 256;

/** Arguments or a script as a form shows them. */
export type Shown =
  | { ok: true; pages: string[]; bytes: number; masked: MaskedValue[]; value?: unknown }
  | { ok: false; reason: string };

/** `value` with every recognized secret in its strings masked (copy-on-write), and what was masked. */
export function maskValue(value: unknown, masked: MaskedValue[] = [], depth = 0): unknown {
  if (typeof value === 'string') {
    const r = maskRecognizedSecrets(value);
    masked.push(...r.masked);
    return r.text;
  }
  if (value === null || typeof value !== 'object' || depth > MAX_MASK_DEPTH) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const m = maskValue(item, masked, depth + 1);
      changed ||= m !== item;
      return m;
    });
    return changed ? out : value;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const m = maskValue(item, masked, depth + 1);
    changed ||= m !== item;
    Object.defineProperty(out, key, { value: m, enumerable: true, writable: true, configurable: true });
  }
  return changed ? out : value;
}

/** `text` in pages of at most `maxBytes` UTF-8 bytes each, never splitting a character. */
export function pagesOf(text: string, maxBytes = MAX_SHOWN_ARGUMENT_BYTES): string[] {
  const pages: string[] = [];
  let page = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) {
      pages.push(page);
      page = '';
      bytes = 0;
    }
    page += char;
    bytes += size;
  }
  if (page !== '' || pages.length === 0) pages.push(page);
  return pages;
}

function paged(text: string, what: string, masked: MaskedValue[], value?: unknown): Shown {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_SHOWN_ARGUMENT_BYTES * MAX_APPROVAL_PAGES) {
    return {
      ok: false,
      reason: `the ${what} are ${bytes} bytes, too long to show for approval (an approval shows at most ${MAX_APPROVAL_PAGES} pages of ${MAX_SHOWN_ARGUMENT_BYTES} bytes); refused rather than approved unseen`,
    };
  }
  return { ok: true, pages: pagesOf(text), bytes, masked, ...(value !== undefined ? { value } : {}) };
}

/** A call's arguments as its approval form shows them: their JSON as the tool gets it, recognized secrets masked. */
export function showArguments(input: unknown): Shown {
  const masked: MaskedValue[] = [];
  const value = maskValue(input, masked);
  return paged(JSON.stringify(value) ?? 'null', 'arguments', masked, value);
}

/** A script as its up-front approval shows it: the exact code, recognized secrets masked. */
export function showScript(code: string): Shown {
  const { text, masked } = maskRecognizedSecrets(code);
  return paged(text, 'script\'s contents', masked);
}

/** The sentence saying what was masked, or '' when nothing was. */
export function maskedNote(masked: readonly MaskedValue[]): string {
  if (masked.length === 0) return '';
  const list = masked.map((m) => `${m.rule} (${m.characters} characters)`).join(', ');
  return `\n${masked.length} value${masked.length === 1 ? '' : 's'} masked, each recognized by its own format: ${list}. Nothing else is hidden.`;
}
