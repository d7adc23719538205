/**
 * The digest an approval is bound to: sha-256 over the canonical JSON of a call's arguments
 * (RFC 8785's ordering: members sorted by their names' UTF-16 code units, no whitespace,
 * strings and numbers as ECMAScript's JSON.stringify writes them). What a person was shown
 * and what the tool is handed are compared by it, so a change in between is seen.
 */
import { createHash } from 'node:crypto';

/** Nesting deeper than this is refused by {@link canonicalJson} (arguments are far shallower: the host's input bound). */
export const MAX_CANONICAL_DEPTH = 256;

/** A value that has no canonical JSON (too deep, or not JSON at all). */
export class CanonicalJsonError extends Error {
  override readonly name = 'CanonicalJsonError';
}

/** The canonical JSON text of `value` (members sorted, no whitespace); throws {@link CanonicalJsonError} past {@link MAX_CANONICAL_DEPTH}. */
export function canonicalJson(value: unknown): string {
  return write(value, 0);
}

function write(value: unknown, depth: number): string {
  if (value === null || typeof value !== 'object') {
    // JSON.stringify's own rules for primitives: non-finite numbers become null.
    const text = JSON.stringify(value);
    if (text === undefined) throw new CanonicalJsonError(`a ${typeof value} has no JSON form`);
    return text;
  }
  if (depth >= MAX_CANONICAL_DEPTH) throw new CanonicalJsonError(`nesting deeper than ${MAX_CANONICAL_DEPTH}`);
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return write((value as { toJSON(): unknown }).toJSON(), depth);
  if (Array.isArray(value)) {
    // As JSON.stringify: an array slot without a JSON form is null.
    return `[${value.map((item) => (item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : write(item, depth + 1))).join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  // Default sort compares UTF-16 code units, as RFC 8785 §3.2.3 asks.
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    parts.push(`${JSON.stringify(key)}:${write(member, depth + 1)}`);
  }
  return `{${parts.join(',')}}`;
}

/** `sha256:<hex>` of `text` as UTF-8. */
export function textDigest(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** `sha256:<hex>` of the canonical JSON of a call's arguments. */
export function argumentsDigest(args: unknown): string {
  return textDigest(canonicalJson(args));
}
