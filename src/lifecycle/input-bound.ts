/**
 * RFC-007 §5.2: bound the serialized UTF-8 size of a `started` notification's `input`, and
 * redact values the host recognizes as credentials.
 *
 * The common case, small arguments with no credential-looking text, costs one
 * `JSON.stringify`, a length check and one regular-expression scan. Only inputs that are
 * over the bound, or that may hold a credential, are reshaped (copy-on-write).
 */
import { MAX_REDACTION_DEPTH, mayHoldCredential, redactCredentials } from './credentials.ts';
import { isPlainObject } from './field-select.ts';
import { shrinkToBytes } from './json-shrink.ts';

/** The RFC-007 §5.2 RECOMMENDED bound: 16 KiB of serialized UTF-8. */
export const DEFAULT_INPUT_BOUND_BYTES = 16384;

/** Options for {@link boundInput}. */
export interface BoundOptions {
  /** Maximum serialized UTF-8 size of the result. Default {@link DEFAULT_INPUT_BOUND_BYTES}. */
  maxBytes?: number;
  /** Replace values of credential-named members (see `isCredentialKey`). Default true. */
  redactCredentials?: boolean;
}

/** A bounded input, or the reason none could be made (the caller then sets `inputWithheld`). */
export type BoundResult =
  | {
      ok: true;
      input: Record<string, unknown>;
      altered: boolean;
      /** `input` serialized, so that a caller writing it to the wire does not serialize it again. */
      json: string;
    }
  | { ok: false; reason: string };

/**
 * Returns `input` within `maxBytes` serialized, redacting credentials first. `altered` is
 * true when anything was cut, removed or redacted. Withholds when `input` is not a JSON
 * object, cannot be serialized, may hold a credential deeper than redaction inspects, or not
 * one member of it fits.
 *
 * The result shares structure with `input` (it is `input` itself when nothing changed):
 * serialize it before the arguments can change.
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
  let value = input;
  let altered = false;
  if (redact && mayHoldCredential(json)) {
    const redacted = redactCredentials(value);
    // Fail closed: a credential may sit where the walk did not look.
    if (redacted.exhausted) {
      return { ok: false, reason: `arguments nest deeper than ${MAX_REDACTION_DEPTH} levels, past what credential redaction inspects` };
    }
    if (redacted.changed) {
      value = redacted.value as Record<string, unknown>;
      altered = true;
      json = JSON.stringify(value);
    }
  }
  if (fits(json, maxBytes)) return { ok: true, input: value, altered, json };
  const shrunk = shrinkToBytes(value, maxBytes);
  if (shrunk === undefined) return { ok: false, reason: `arguments cannot be bounded to ${maxBytes} bytes meaningfully` };
  return { ok: true, input: shrunk, altered: true, json: JSON.stringify(shrunk) };
}

/** UTF-8 size check that skips counting when even 3 bytes per UTF-16 unit would fit. */
function fits(json: string, maxBytes: number): boolean {
  return json.length * 3 <= maxBytes || Buffer.byteLength(json, 'utf8') <= maxBytes;
}
