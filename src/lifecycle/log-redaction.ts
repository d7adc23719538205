/**
 * Logs go through the same value redaction as everything else that leaves the host: a
 * provider URL's `user:password@` or `?api_key=`, a token in an error message. Applied to each
 * line pino writes (its `streamWrite` hook), after serializers, so an `err`'s message and stack
 * are covered too. Lines are rare (no per-call logging at info), so the cost is irrelevant.
 */
import type { LoggerOptions } from 'pino';
import { redactSecretsInText } from './secret-values.ts';

function redactStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactSecretsInText(value);
  // Log objects are shallow; past this depth pino's own serialization already went.
  if (value === null || typeof value !== 'object' || depth > 32) return value;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redactStrings(item, depth + 1);
  return out;
}

/**
 * One serialized log line with every string value redacted; the line stays one JSON object.
 * Text that is not JSON is redacted as text.
 */
export function redactLogLine(line: string): string {
  const trailing = line.endsWith('\n') ? '\n' : '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    // Not pino's JSON (a custom formatter): the text as a whole.
    return redactSecretsInText(line);
  }
  return `${JSON.stringify(redactStrings(parsed, 0))}${trailing}`;
}

/** pino options that redact every line written (merge into the logger's own options). */
export const REDACTING_LOG_OPTIONS = { hooks: { streamWrite: redactLogLine } } satisfies LoggerOptions;
