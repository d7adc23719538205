/**
 * The bound on a script's size, checked before any other work on it (normalization, approval,
 * any engine): every later host-side step — fence and prose detection, the acorn parse,
 * TypeScript stripping — is then bounded by what this limit admits.
 */

/**
 * Default `maxCodeBytes`: 256 KiB of UTF-8. Model-written scripts are almost all under 10 KiB
 * (the corpus of test/code-execution/corpus.test.ts and the benches' scripts are 0.1–6 KiB); a
 * script that carries data inline (a table, a long prompt) reaches tens of KiB. 256 KiB keeps
 * room for those while bounding the work a script buys before it runs: at this size acorn
 * parses in ≲ 0.6 s (the slowest case measured: 64k regular expression literals) and that work
 * happens off the host's thread (./normalize-pool.ts) under its own time bound.
 */
export const DEFAULT_MAX_CODE_BYTES = 256 * 1024;

/**
 * Why `code` is refused for its size, or undefined when it fits `maxBytes`. Counts UTF-8 bytes
 * (what a client sent), without encoding the string when its length decides: a UTF-16 code unit
 * is one to three bytes, so a string of at most a third of the limit in units fits, and one
 * of more than four times the limit is over it, measured no further.
 */
export function codeTooLarge(code: string, maxBytes: number): string | undefined {
  if (code.length <= maxBytes / 3) return undefined;
  const bytes = code.length > 4 * maxBytes ? undefined : Buffer.byteLength(code, 'utf8');
  if (bytes !== undefined && bytes <= maxBytes) return undefined;
  const size = bytes === undefined ? `more than ${maxBytes.toLocaleString('en-US')}` : bytes.toLocaleString('en-US');
  return `invalid_request: \`code\` is ${size} bytes, over the limit of ${maxBytes.toLocaleString('en-US')} bytes (maxCodeBytes); nothing ran. Send a shorter script: fetch data with tool calls instead of pasting it into the code.`;
}
