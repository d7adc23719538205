import { constants } from 'node:os';
import type { CallSummary, RunError, SessionInfo } from '../types.ts';
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
  return result;
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
