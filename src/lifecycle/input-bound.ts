/**
 * RFC-007 §5.2: bound the serialized UTF-8 size of a `started` notification's `input`, and
 * redact values the host recognizes as credentials.
 *
 * The common case, small arguments with no credential-looking text, costs one
 * `JSON.stringify`, a length check and one regular-expression scan. Only inputs that are
 * over the bound, or that may hold a credential, are copied and reshaped.
 */
import { isPlainObject, setMember } from './field-select.ts';

/** The RFC-007 §5.2 RECOMMENDED bound: 16 KiB of serialized UTF-8. */
export const DEFAULT_INPUT_BOUND_BYTES = 16384;

/** What replaces a credential's value. */
export const REDACTED = '[redacted]';

/** Options for {@link boundInput}. */
export interface BoundOptions {
  /** Maximum serialized UTF-8 size of the result. Default {@link DEFAULT_INPUT_BOUND_BYTES}. */
  maxBytes?: number;
  /** Replace values of credential-named members (see {@link isCredentialKey}). Default true. */
  redactCredentials?: boolean;
}

/** A bounded input, or the reason none could be made (the caller then sets `inputWithheld`). */
export type BoundResult =
  | { ok: true; input: Record<string, unknown>; altered: boolean }
  | { ok: false; reason: string };

/** Nesting deeper than this is dropped rather than walked when an input must be reshaped. */
const MAX_RESHAPE_DEPTH = 64;

// A superset pre-check over the serialized text: anything isCredentialKey accepts contains
// one of these. It also hits values ("author"), which only costs a walk that finds nothing.
const MAY_HOLD_CREDENTIAL = /pass(?:word|wd|phrase)|secret|token|api[-_\s]?key|private[-_\s]?key|access[-_\s]?key|credential|auth|cookie/i;
const CREDENTIAL_SUFFIXES = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'privatekey',
  'accesskey',
  'credential',
  'credentials',
  'authorization',
  'cookie',
];
const CREDENTIAL_EXACT: ReadonlySet<string> = new Set(['auth', 'setcookie']);

/**
 * Whether a member name looks like it holds a secret: case, `-`, `_` and spaces ignored, the
 * name is `auth`, or ends in password, secret, token, api key, private key, access key,
 * credential(s), authorization or cookie. `max_tokens` and `author` do not qualify.
 */
export function isCredentialKey(key: string): boolean {
  const name = key.toLowerCase().replace(/[-_\s]/g, '');
  if (CREDENTIAL_EXACT.has(name)) return true;
  for (const suffix of CREDENTIAL_SUFFIXES) if (name.endsWith(suffix)) return true;
  return false;
}

/**
 * Returns `input` within `maxBytes` serialized. Over the bound, strings are cut to a prefix
 * (never inside a code point), later array elements are removed, and object members that
 * cannot fit are removed while later, smaller ones are still tried. `altered` is true when
 * anything was cut, removed or redacted. Withholds when `input` is not a JSON object, cannot
 * be serialized, or nothing of it fits.
 *
 * Under the bound and with nothing redacted, the result is `input` itself: serialize it
 * before the arguments can change.
 */
export function boundInput(input: unknown, options: BoundOptions = {}): BoundResult {
  const maxBytes = options.maxBytes ?? DEFAULT_INPUT_BOUND_BYTES;
  const redact = options.redactCredentials ?? true;
  if (!isPlainObject(input)) return { ok: false, reason: 'arguments are not a JSON object' };
  let json: string;
  try {
    json = JSON.stringify(input);
  } catch (err) {
    return { ok: false, reason: `arguments cannot be serialized: ${(err as Error).message}` };
  }
  if (json === undefined || json[0] !== '{') return { ok: false, reason: 'arguments do not serialize to a JSON object' };
  const mayRedact = redact && MAY_HOLD_CREDENTIAL.test(json);
  if (!mayRedact && fits(json, maxBytes)) return { ok: true, input, altered: false };

  // Reshape a private copy: parsing the serialized form also drops what JSON would drop.
  let value = JSON.parse(json) as Record<string, unknown>;
  let altered = false;
  if (mayRedact) {
    const redacted = redactValue(value, 0);
    if (redacted.changed) {
      value = redacted.value as Record<string, unknown>;
      altered = true;
      json = JSON.stringify(value);
    }
  }
  if (fits(json, maxBytes)) return { ok: true, input: value, altered };
  const bounded = fit(value, maxBytes, 0);
  if (bounded === undefined) {
    return { ok: false, reason: `arguments cannot be bounded to ${maxBytes} bytes meaningfully` };
  }
  return { ok: true, input: bounded.value as Record<string, unknown>, altered: true };
}

/** UTF-8 size check that skips counting when even 3 bytes per UTF-16 unit would fit. */
function fits(json: string, maxBytes: number): boolean {
  return json.length * 3 <= maxBytes || Buffer.byteLength(json, 'utf8') <= maxBytes;
}

function redactValue(value: unknown, depth: number): { value: unknown; changed: boolean } {
  if (depth > MAX_RESHAPE_DEPTH || value === null || typeof value !== 'object') return { value, changed: false };
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const r = redactValue(item, depth + 1);
      changed ||= r.changed;
      return r.value;
    });
    return changed ? { value: out, changed } : { value, changed: false };
  }
  const record = value as Record<string, unknown>;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const member = record[key];
    if (isCredentialKey(key) && member !== null && typeof member !== 'boolean') {
      setMember(out, key, REDACTED);
      changed = true;
      continue;
    }
    const r = redactValue(member, depth + 1);
    changed ||= r.changed;
    setMember(out, key, r.value);
  }
  return changed ? { value: out, changed } : { value, changed: false };
}

/** A value that fits a byte budget, and its serialized size. */
interface Fitted {
  value: unknown;
  size: number;
}

/** The largest reshaping of `value` whose serialization fits `budget` bytes, if any. */
function fit(value: unknown, budget: number, depth: number): Fitted | undefined {
  const size = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (size <= budget) return { value, size };
  if (depth >= MAX_RESHAPE_DEPTH) return undefined;
  if (typeof value === 'string') return cutString(value, budget);
  if (Array.isArray(value)) return fitArray(value, budget, depth);
  if (isPlainObject(value)) return fitObject(value, budget, depth);
  return undefined; // a number, boolean or null that does not fit
}

function fitArray(items: readonly unknown[], budget: number, depth: number): Fitted | undefined {
  if (budget < 2) return undefined;
  const out: unknown[] = [];
  let used = 2;
  // Keep a prefix: removing middle elements would shift the meaning of later ones.
  for (const item of items) {
    const comma = out.length > 0 ? 1 : 0;
    const fitted = fit(item, budget - used - comma, depth + 1);
    if (fitted === undefined) break;
    out.push(fitted.value);
    used += comma + fitted.size;
    if (fitted.value !== item) break; // it was cut, so the budget is spent
  }
  // An emptied container says nothing; dropping it leaves room for later members.
  return out.length === 0 && items.length > 0 ? undefined : { value: out, size: used };
}

function fitObject(record: Record<string, unknown>, budget: number, depth: number): Fitted | undefined {
  if (budget < 2) return undefined;
  const out: Record<string, unknown> = {};
  let used = 2;
  let count = 0;
  for (const key of Object.keys(record)) {
    const comma = count > 0 ? 1 : 0;
    const keyCost = Buffer.byteLength(JSON.stringify(key), 'utf8') + 1;
    const room = budget - used - comma - keyCost;
    if (room < 1) continue;
    const fitted = fit(record[key], room, depth + 1);
    if (fitted === undefined) continue; // a later, smaller member may still fit
    setMember(out, key, fitted.value);
    used += comma + keyCost + fitted.size;
    count++;
  }
  return count === 0 && Object.keys(record).length > 0 ? undefined : { value: out, size: used };
}

/** The longest prefix of `text` whose JSON string form fits `budget` bytes. */
function cutString(text: string, budget: number): Fitted | undefined {
  if (budget < 2) return undefined;
  let used = 2;
  let end = 0;
  while (end < text.length) {
    const unit = text.charCodeAt(end);
    let width = 1;
    let cost: number;
    if (unit === 0x22 || unit === 0x5c) cost = 2;
    else if (unit < 0x20) cost = unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d ? 2 : 6;
    else if (unit < 0x80) cost = 1;
    else if (unit < 0x800) cost = 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(end + 1))) {
      cost = 4;
      width = 2;
    } else if (unit >= 0xd800 && unit <= 0xdfff) cost = 6; // a lone surrogate serializes as \udxxx
    else cost = 3;
    if (used + cost > budget) break;
    used += cost;
    end += width;
  }
  return { value: text.slice(0, end), size: used };
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
