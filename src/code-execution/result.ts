/**
 * The one result of a `code_execution` call, the same object in `structuredContent` and in the
 * JSON text, for both languages: what the script returned, what it printed and logged, a
 * summary of its inner calls, and a clear error kind when it failed. Declared as the tool's
 * `outputSchema` (output-schema.ts). Inner results never appear here unless the script put
 * them in its own output.
 *
 * The text stays within the result cap without ever being cut mid-JSON: past the cap the value
 * keeps its beginning as valid JSON (value-prefix.ts), `truncated.value` gives its length, shape
 * and cuts, and — where the caller keeps cut values (result-pages.ts) — a handle and one line
 * saying how to read the rest; stdout, logs and error texts keep their first part, each cut
 * marked under `truncated`.
 */
import type { ContentBlock, ToolResult } from '../host/types.ts';
import { takeText } from '../runtime/json-text.ts';
import type { CallSummary, Conversion, LogEntry, RunError, RunErrorKind, SessionInfo } from '../runtime/types.ts';
import { shapeOf } from './shape.ts';
import { valuePrefix, type ValueCut } from './value-prefix.ts';
import type { ContentSummary } from './returned-content.ts';

export interface TimeLimit {
  requestedMs: number;
  appliedMs: number;
  /** True when the request was above the ceiling and was lowered to it. */
  capped: boolean;
}

/** Per-tool totals of a script's calls. */
export interface CallTotals {
  [tool: string]: { ok: number; error: number; cancelled: number; totalMs: number };
}

/** Why a run failed, as the model reads it. */
export interface EnvelopeError {
  kind: RunErrorKind;
  name?: string;
  message: string;
  /** Line (and column) of the user's script, where the runtime knows it. */
  line?: number;
  column?: number;
  stack?: string;
}

/** What was cut to keep the result within its cap. */
export interface Truncation {
  /**
   * The value was over the cap: its JSON length and shape, and — when `value` holds its
   * beginning (an array's first items, an object's first members, a string's start) — where it
   * was cut and what was kept of what (value-prefix.ts). Without `cuts` the value was left out.
   */
  value?: {
    chars: number;
    shape: string;
    cuts?: ValueCut[];
    /** Where the whole value's JSON text is kept for the `result_page` tool (result-pages.ts). */
    handle?: string;
    /** One line telling the model how to read the rest (with `handle`), or why it cannot. */
    more?: string;
  };
  /** stdout keeps its first part; `chars` is its full length. */
  stdout?: { chars: number };
  /** The first log entries are kept; `entries` is how many there were. */
  logs?: { entries: number };
  /** The error's message or stack was shortened. */
  error?: boolean;
  /** The runtime itself cut its output (or left out the value) at its own cap. */
  output?: boolean;
}

/**
 * The result envelope (see {@link RESULT_ENVELOPE_SCHEMA}). Optional fields are left out when
 * empty. Python's stderr is folded into `logs` (one entry of level `error`); its return code is
 * not repeated: a non-zero one always comes with an `error` saying why.
 */
export interface ResultEnvelope {
  ok: boolean;
  value?: unknown;
  /**
   * The script returned content (images, audio, resources, text): one entry per block, which
   * follow this JSON in the result's `content`, in order. `value` is then left out.
   */
  content?: ContentSummary[];
  stdout?: string;
  logs?: LogEntry[];
  /** `fresh`: the run started in a new session, so no variable of an earlier run exists. */
  session?: SessionInfo;
  /** Values JSON cannot hold that the script returned, each kind with the JSON form it was given (docs/script-results.md). */
  converted?: Conversion[];
  /** What was changed in the script before it ran (`"fence"`: a Markdown fence was removed; `"function"`: a lone function was called). */
  normalized?: string[];
  error?: EnvelopeError;
  truncated?: Truncation;
  /** The first calls in start order (all of them when there are few). */
  calls: CallSummary[];
  /** How many calls the script made in all, when `calls` was shortened. */
  callCount?: number;
  /** Per-tool totals, when `calls` was shortened. */
  callTotals?: CallTotals;
  timeLimit: TimeLimit;
}

/** What either runtime reports that the envelope is built from; fields a runtime lacks are absent. */
export interface RunReport {
  ok: boolean;
  value?: unknown;
  error?: RunError & { line?: number; column?: number };
  stdout?: string;
  stderr?: string;
  logs?: LogEntry[];
  session?: { fresh: boolean };
  /** Values given their documented JSON forms (see {@link ResultEnvelope.converted}). */
  converted?: readonly Conversion[];
  /** The runtime cut output or left the value out at its own cap. */
  truncated?: boolean;
  calls: readonly CallSummary[];
}

/** Calls listed one by one before the list is summarized. */
export const LISTED_CALLS = 25;

/** A duration as the model reads it: 0.1 ms resolution, no float noise. */
export function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** Shortens a long call list to its first entries plus per-tool totals; durations rounded. */
export function summarizeCalls(calls: readonly CallSummary[]): Pick<ResultEnvelope, 'calls' | 'callCount' | 'callTotals'> {
  const listed = calls.slice(0, LISTED_CALLS).map((c) => ({ name: c.name, status: c.status, durationMs: roundMs(c.durationMs) }));
  if (calls.length <= LISTED_CALLS) return { calls: listed };
  const totals: CallTotals = {};
  for (const c of calls) {
    const t = (totals[c.name] ??= { ok: 0, error: 0, cancelled: 0, totalMs: 0 });
    t[c.status] += 1;
    t.totalMs += c.durationMs;
  }
  for (const t of Object.values(totals)) t.totalMs = roundMs(t.totalMs);
  return { calls: listed, callCount: calls.length, callTotals: totals };
}

function envelopeError(error: RunReport['error']): EnvelopeError | undefined {
  if (!error) return undefined;
  const out: EnvelopeError = { kind: error.kind, message: error.message };
  if (error.name) out.name = error.name;
  const where = Number.isInteger(error.line) && error.line! >= 1 ? { line: error.line!, column: error.column } : scriptPosition(error.stack);
  if (where !== undefined) {
    out.line = where.line;
    if (Number.isInteger(where.column) && where.column! >= 1) out.column = where.column!;
  }
  if (error.stack) out.stack = error.stack;
  return out;
}

/**
 * The script's own line (and column) of a runtime error, read from its stack's first frame of
 * the script: `at script.js:L:C` (both JavaScript engines) or the last `File "<run N>", line L`
 * of a Python traceback (the innermost frame of the script). Undefined when no frame names it.
 */
export function scriptPosition(stack: string | undefined): { line: number; column?: number } | undefined {
  if (stack === undefined) return undefined;
  const js = /script\.js:(\d+):(\d+)/.exec(stack);
  if (js !== null) return { line: Number(js[1]), column: Number(js[2]) };
  let line: number | undefined;
  for (const match of stack.matchAll(/File "<run \d+>", line (\d+)/g)) line = Number(match[1]);
  return line === undefined ? undefined : { line };
}

/**
 * Builds the envelope from a run of either language; `normalized` names the changes made to its
 * script, `content` summarizes the content blocks it returned (returned-content.ts).
 */
export function buildEnvelope(run: RunReport, timeLimit: TimeLimit, normalized: readonly string[] = [], content?: readonly ContentSummary[]): ResultEnvelope {
  const logs = [...(run.logs ?? [])];
  if (run.stderr) logs.push({ level: 'error', message: run.stderr });
  const error = envelopeError(run.error);
  return {
    ok: run.ok,
    ...(run.value !== undefined ? { value: run.value } : {}),
    ...(content !== undefined ? { content: [...content] } : {}),
    ...(run.stdout ? { stdout: run.stdout } : {}),
    ...(logs.length > 0 ? { logs } : {}),
    ...(run.session ? { session: { fresh: run.session.fresh } } : {}),
    ...(run.converted !== undefined && run.converted.length > 0 ? { converted: [...run.converted] } : {}),
    ...(normalized.length > 0 ? { normalized: [...normalized] } : {}),
    ...(error ? { error } : {}),
    ...(run.truncated ? { truncated: { output: true } } : {}),
    ...summarizeCalls(run.calls),
    timeLimit,
  };
}

/** Characters held back for the truncation markers and the value's shape. */
const MARKER_RESERVE = 800;
/** Characters held back for the list of a truncated value's cuts (at most MAX_CUTS short entries). */
const CUTS_RESERVE = 700;
/** Characters held back for a cut value's handle and its one line on reading the rest. */
const PAGE_RESERVE = 400;

/**
 * Keeps a cut value's whole JSON text where the model can page it (result-pages.ts): the
 * fields to add to `truncated.value` (`handle` and `more`, or only `more` saying why not).
 */
export type KeepCutValue = (json: string) => { handle?: string; more: string };
/** Longest error message or stack kept when the result is over its cap. */
const ERROR_TEXT_CHARS = 2000;

const jsonLength = (value: unknown): number => JSON.stringify(value).length;

/**
 * The envelope as JSON text. `valueText`, when given, is the JSON text of `envelope.value`
 * (json-text.ts): spliced in as it is instead of serializing a value the host only just parsed
 * from that text (a megabyte costs two serializations otherwise: this one and the length check).
 * Only where `ok` and `value` lead the envelope (buildEnvelope's order), so the text keeps the
 * object's key order; elsewhere the envelope is serialized whole.
 */
function envelopeText(envelope: ResultEnvelope, valueText: string | undefined): string {
  if (valueText === undefined || envelope.value === undefined) return JSON.stringify(envelope);
  const keys = Object.keys(envelope);
  if (keys[0] !== 'ok' || keys[1] !== 'value') return JSON.stringify(envelope);
  const { ok, value: _value, ...rest } = envelope;
  const tail = JSON.stringify(rest);
  return `{"ok":${ok},"value":${valueText}${tail === '{}' ? '}' : `,${tail.slice(1)}`}`;
}

/** The longest prefix of `text` whose JSON string form takes at most `room` characters. */
function clipToJson(text: string, room: number): string {
  let n = Math.min(text.length, Math.max(0, room - 2));
  let clipped = text.slice(0, n);
  while (n > 0 && jsonLength(clipped) > room) {
    n = Math.floor(n * 0.75);
    clipped = text.slice(0, n);
  }
  return clipped;
}

/**
 * Fits the envelope within `maxChars` of JSON text. The value keeps priority over stdout and
 * logs; every cut is recorded in `truncated`. The text is valid JSON whatever happens; it can
 * exceed `maxChars` only when the cap is smaller than the envelope's fixed parts. `valueText`:
 * the value's JSON text when known (json-text.ts), counted and kept instead of serializing it.
 */
export function fitEnvelope(envelope: ResultEnvelope, maxChars: number, keep?: KeepCutValue, valueText?: string): ResultEnvelope {
  if (envelopeText(envelope, valueText).length <= maxChars) return envelope;
  const truncated: Truncation = { ...envelope.truncated };
  const { value, stdout, logs, ...rest } = envelope;
  const out: ResultEnvelope = { ...rest };
  if (out.error && (out.error.message.length > ERROR_TEXT_CHARS || (out.error.stack?.length ?? 0) > ERROR_TEXT_CHARS)) {
    out.error = { ...out.error, message: out.error.message.slice(0, ERROR_TEXT_CHARS) };
    if (envelope.error!.stack !== undefined) out.error.stack = envelope.error!.stack.slice(0, ERROR_TEXT_CHARS);
    truncated.error = true;
  }
  let room = maxChars - jsonLength(out) - MARKER_RESERVE;
  if (value !== undefined) {
    const text = valueText ?? JSON.stringify(value);
    if (text.length + 10 <= room) {
      out.value = value;
      room -= text.length + 10;
    } else {
      truncated.value = { chars: text.length, shape: shapeOf(value) };
      if (keep !== undefined) {
        Object.assign(truncated.value, keep(text));
        room -= PAGE_RESERVE;
      }
      // Its beginning, as valid JSON, in the room left after the list of cuts.
      const prefix = valuePrefix(value, room - CUTS_RESERVE);
      if (prefix !== undefined && prefix.cuts.length > 0) {
        out.value = prefix.value;
        truncated.value.cuts = prefix.cuts;
        room -= jsonLength(prefix.value) + 10 + jsonLength(prefix.cuts);
      }
    }
  }
  if (stdout !== undefined) {
    const cost = jsonLength(stdout) + 12;
    if (cost <= room) {
      out.stdout = stdout;
      room -= cost;
    } else {
      // Half of what is left, so that logs keep their first entries too.
      const clipped = clipToJson(stdout, Math.floor(room / 2));
      if (clipped !== '') out.stdout = clipped;
      truncated.stdout = { chars: stdout.length };
      room -= jsonLength(clipped) + 12;
    }
  }
  if (logs !== undefined) {
    const kept: LogEntry[] = [];
    let cut = false;
    for (const entry of logs) {
      const cost = jsonLength(entry) + 1;
      if (cost <= room) {
        kept.push(entry);
        room -= cost;
        continue;
      }
      // The first entry that does not fit keeps its beginning, then the list stops.
      const message = clipToJson(entry.message, room - 30);
      if (message !== '') kept.push({ level: entry.level, message });
      cut = true;
      break;
    }
    if (kept.length > 0) out.logs = kept;
    if (cut) truncated.logs = { entries: logs.length };
  }
  if (Object.keys(truncated).length > 0) out.truncated = truncated;
  return out;
}

/**
 * Serializes an envelope as the tool's result: the same object as JSON text and
 * `structuredContent`. The JSON text is always the first block; content the script returned
 * follows it (bounded on its own, not by `maxChars`).
 */
export function toToolResult(envelope: ResultEnvelope, maxChars: number, endTurn: boolean, returned: readonly ContentBlock[] = [], keep?: KeepCutValue): ToolResult {
  // The value's JSON text as the sandbox wrote it, when the runtime kept it (json-text.ts).
  const valueText = takeText(envelope.value);
  const fitted = fitEnvelope(envelope, maxChars, keep, valueText);
  return {
    content: [{ type: 'text', text: envelopeText(fitted, fitted.value === envelope.value ? valueText : undefined) }, ...returned],
    structuredContent: fitted as unknown as Record<string, unknown>,
    ...(fitted.ok ? {} : { isError: true }),
    ...(endTurn ? { _meta: { 'agent-framework/endTurn': true } } : {}),
  };
}

/** A refusal that happens inside the tool (bad input, busy runner): a completed error result, text only. */
export function refusalResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
