import { constants } from 'node:os';
import type { CallSummary, Conversion, RunError, SessionInfo } from '../types.ts';
import type { InboundMessage } from './protocol.ts';
import type { CapturedOutput } from './output.ts';

/** What one `PythonRunner.run` produced. Never a rejection: every failure is described here. */
export interface PythonRunResult {
  /** True when the script finished normally (or via `sys.exit(0)`) within its limit. */
  ok: boolean;
  stdout: string;
  stderr: string;
  /**
   * What a `python3 script.py` process would have exited with: 0, 1 for an uncaught exception,
   * the `sys.exit` code, 130 when interrupted, 128+N when killed by signal N.
   */
  returnCode: number;
  /**
   * When the script's last statement is an expression (as in a REPL) and its value is not `None`:
   * that value if JSON can carry it, else its `repr()`. Left out when larger than the output cap.
   */
  value?: unknown;
  /** Values given their documented JSON forms, each kind with its count (json_forms.py). */
  converted?: Conversion[];
  error?: RunError;
  /** Output (or the value) was cut at the output cap. */
  truncated?: boolean;
  /** Tool calls in start order; helper globals are not listed. */
  calls: CallSummary[];
  /**
   * Whether the run started in a fresh interpreter (no globals of an earlier run). Set by
   * {@link PythonRunner.run} for every run that reached an interpreter.
   */
  session?: SessionInfo;
}

/** Why the runner stopped a run itself. */
export type StopReason = 'timeout' | 'aborted' | 'killed';

type Done = Extract<InboundMessage, { t: 'done' }>;

export function stopMessage(reason: StopReason, timeoutMs: number, how: string): RunError {
  if (reason === 'timeout') return { kind: 'timeout', message: `the time limit of ${timeoutMs} ms was reached; ${how}` };
  if (reason === 'aborted') return { kind: 'aborted', message: `the run was aborted; ${how}` };
  return { kind: 'aborted', message: `the runner was killed; ${how}` };
}

function assemble(output: CapturedOutput, calls: CallSummary[], returnCode: number, error?: RunError, value?: unknown): PythonRunResult {
  const result: PythonRunResult = { ok: error === undefined, stdout: output.stdout, stderr: output.stderr, returnCode, calls };
  if (value !== undefined) result.value = value;
  if (error) result.error = error;
  if (output.truncated) result.truncated = true;
  return result;
}

/** The result of a run the interpreter finished and reported on. */
export function resultFromDone(
  done: Done,
  output: CapturedOutput,
  calls: CallSummary[],
  stop: { reason: StopReason; timeoutMs: number; how: string } | null,
): PythonRunResult {
  let error: RunError | undefined;
  if (stop) {
    error = { ...stopMessage(stop.reason, stop.timeoutMs, stop.how), ...(done.error?.stack ? { stack: done.error.stack } : {}) };
  } else if (done.outcome === 'exit') {
    if (done.returnCode !== 0) error = { kind: 'script', name: 'SystemExit', message: `the script called sys.exit(${done.returnCode})` };
  } else if (done.outcome !== 'ok') {
    const info = done.error ?? { name: 'Error', message: `the script ended with outcome ${done.outcome}` };
    error = { kind: 'script', name: info.name, message: info.message, ...(info.stack ? { stack: info.stack } : {}) };
  }
  const result = assemble(output, calls, done.returnCode, error, done.value);
  if (done.valueTruncated) result.truncated = true;
  const converted = conversions(done.converted);
  if (converted.length > 0) result.converted = converted;
  return result;
}

/** Kinds of conversion kept from a `done` frame, and the longest text of each field. */
const MAX_CONVERSIONS = 16;
const MAX_CONVERSION_CHARS = 120;

/**
 * The `converted` list of a `done` frame, checked: the interpreter runs the script's code too, so
 * what it reports is bounded and typed here (at most 16 entries, short texts, positive counts).
 */
function conversions(raw: unknown): Conversion[] {
  if (!Array.isArray(raw)) return [];
  const out: Conversion[] = [];
  for (const entry of raw.slice(0, MAX_CONVERSIONS)) {
    if (entry === null || typeof entry !== 'object') continue;
    const { kind, as, count } = entry as Record<string, unknown>;
    if (typeof kind !== 'string' || typeof as !== 'string' || !Number.isSafeInteger(count) || (count as number) < 1) continue;
    out.push({ kind: kind.slice(0, MAX_CONVERSION_CHARS), as: as.slice(0, MAX_CONVERSION_CHARS), count: count as number });
  }
  return out;
}

/** Exit status as a shell would report it. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (signal) return 128 + (constants.signals[signal] ?? 0);
  return code ?? 1;
}

/** The result of a run whose interpreter died or was killed before reporting. */
export function resultFromLoss(output: CapturedOutput, calls: CallSummary[], returnCode: number, error: RunError): PythonRunResult {
  return assemble(output, calls, returnCode, error);
}
