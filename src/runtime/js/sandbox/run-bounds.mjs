// The limits a sandbox process enforces before anything crosses to the host, shared by both
// engines' runners (engines/v8/run.mjs for V8, engines/quickjs/vm.mjs for QuickJS) so that their
// checks and error texts cannot drift apart. Pure: each check reads the run's counters and
// answers; the runner updates its own state. The host repeats these checks (session.ts).
import { jsonDeeperThan } from './json-depth.mjs';

/** Longest error message or stack sent back. */
const MAX_TEXT = 64 * 1024;

export const DEADLOCK_MESSAGE =
  'the script is waiting for a promise that nothing can settle (no tool call is pending)';

function cap(text) {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

/** The error of a script that threw (or rejected), its texts bounded; non-strings are left out. */
export function scriptError(name, message, stack) {
  const error = { kind: 'script', message: cap(typeof message === 'string' ? message : 'unknown error') };
  if (typeof name === 'string') error.name = cap(name);
  if (typeof stack === 'string') error.stack = cap(stack);
  return error;
}

/** UTF-8 size of `text`. */
export function byteLength(text) {
  return Buffer.byteLength(text, 'utf8');
}

/** Why the run must fail before another call (its call budget is spent), or null. */
export function callsExhausted(limits, calls) {
  return calls >= limits.maxCalls ? `the script made more than ${limits.maxCalls} tool calls (limit maxCalls)` : null;
}

/**
 * A call's admission: its argument bytes (a number) when it may go, or why it is refused (a
 * string the script's promise rejects with). `run` holds `inflight` and `inflightBytes`.
 */
export function admitCall(limits, run, label, json) {
  if (run.inflight >= limits.maxInFlight) {
    return `${label}: ${limits.maxInFlight} calls are already in flight (limit maxInFlight); await some before starting more`;
  }
  const bytes = byteLength(json);
  if (bytes > limits.maxArgsBytes) {
    return `the arguments of ${label} are ${bytes} bytes, over the ${limits.maxArgsBytes}-byte limit (maxArgsBytes)`;
  }
  if (jsonDeeperThan(json, limits.maxDepth)) {
    return `the arguments of ${label} are nested deeper than ${limits.maxDepth} levels (limit maxDepth)`;
  }
  if (run.inflightBytes + bytes > limits.maxInFlightBytes) {
    return `${label}: its ${bytes} bytes of arguments would put more than the ${limits.maxInFlightBytes}-byte limit (maxInFlightBytes) in flight; await some calls before starting more`;
  }
  return bytes;
}

/** Why the run fails once its console output reached `entries` entries and `bytes` bytes, or null. */
export function logOverflow(limits, entries, bytes) {
  // Counted as well as measured: empty lines cost the host an entry each.
  if (entries > limits.maxLogEntries) return `the script wrote more than ${limits.maxLogEntries} log entries (limit maxLogEntries)`;
  if (bytes > limits.maxLogBytes) return `console output exceeded ${limits.maxLogBytes} bytes (limit maxLogBytes)`;
  return null;
}

/** Why a return value's JSON text fails the run, or null. */
export function returnRefusal(limits, json) {
  const max = limits.maxReturnBytes;
  const bytes = json.length * 3 > max ? byteLength(json) : json.length;
  if (bytes > max) return `the return value is ${bytes} bytes, over the ${max}-byte limit (maxReturnBytes)`;
  if (jsonDeeperThan(json, limits.maxDepth)) return `the return value is nested deeper than ${limits.maxDepth} levels (limit maxDepth)`;
  return null;
}
