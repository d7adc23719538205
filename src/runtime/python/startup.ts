import type { RunErrorKind } from '../types.ts';
import { PythonProcess, type LaunchOptions, type ProcessHandlers } from './process.ts';
import { cpuTicks } from './progress.ts';

/**
 * A start that keeps making progress gets up to this many start limits in all (60 s with the
 * default 10 s). At load 20–35 a first start took 2–8 s and tripped the 10 s limit when it was
 * counted by the wall clock alone; now the limit is checked against progress: when it passes
 * and the interpreter used CPU since the last check (or is still being resolved, which its
 * probe bounds), the start gets another period, up to this cap. A hung start (no CPU) still
 * fails at the first limit.
 */
export const START_LIMIT_PERIODS = 6;

/** Why `start()` failed: the interpreter could not start (`sandbox`) or startup was cancelled (`aborted`). */
export class PythonRunnerError extends Error {
  override name = 'PythonRunnerError';
  constructor(
    readonly kind: Extract<RunErrorKind, 'sandbox' | 'aborted'>,
    message: string,
  ) {
    super(message);
  }
}

/** A live interpreter as the runner tracks it. */
export interface Interpreter {
  proc: PythonProcess;
  /** Key of the tool table the interpreter holds, to skip resending it. */
  toolKey: string | null;
  /** Ended on purpose while idle, so its exit is not a crash. */
  reclaimed: boolean;
}

/**
 * One interpreter on its way up. Several callers may wait for it; it settles once, by the
 * handshake (`succeed`), a failure, a cancel, or its start timeout.
 */
export class Startup {
  readonly interp: Interpreter;
  readonly promise: Promise<void>;
  waiters = 0;
  #settled = false;
  #resolve!: () => void;
  #reject!: (err: PythonRunnerError) => void;
  #timer: NodeJS.Timeout;

  constructor(options: LaunchOptions & { startTimeoutMs: number }, handlers: ProcessHandlers) {
    this.promise = new Promise<void>((resolve, reject) => ((this.#resolve = resolve), (this.#reject = reject)));
    // Waiters observe the rejection; this keeps a startup nobody waits for any more from
    // surfacing as an unhandled rejection.
    this.promise.catch(() => {});
    this.interp = { proc: new PythonProcess(options, handlers), toolKey: null, reclaimed: false };
    const limit = options.startTimeoutMs;
    let periods = 1;
    let ticks: number | undefined;
    const check = () => {
      const pid = this.interp.proc.pid;
      const now = pid === undefined ? undefined : cpuTicks(pid);
      // Still being resolved (no process yet: its probe has a bound of its own), or it used CPU
      // since the last check: slow, not stuck.
      const progressing = (pid === undefined && this.interp.proc.alive) || (now !== undefined && now > (ticks ?? 0));
      ticks = now;
      if (progressing && periods < START_LIMIT_PERIODS) {
        periods++;
        this.#timer = setTimeout(check, limit);
        return;
      }
      const why = progressing ? `, though it was still making progress (${START_LIMIT_PERIODS} × ${limit} ms)` : '';
      this.fail(new PythonRunnerError('sandbox', `the Python interpreter did not start within ${periods * limit} ms${why}`));
    };
    this.#timer = setTimeout(check, limit);
  }

  get settled(): boolean {
    return this.#settled;
  }

  succeed(): void {
    if (this.#settle()) this.#resolve();
  }

  /** Rejects every waiter and kills the process (harmless if it already exited). */
  fail(err: PythonRunnerError): void {
    if (!this.#settle()) return;
    this.interp.proc.kill();
    this.#reject(err);
  }

  /**
   * Waits for the startup on behalf of one caller. When `signal` aborts, this caller stops
   * waiting; the startup itself is cancelled only if no other caller still waits for it.
   */
  async join(signal?: AbortSignal): Promise<void> {
    this.waiters++;
    try {
      await abortable(this.promise, signal);
    } catch (e) {
      if (--this.waiters === 0 && signal?.aborted) this.fail(new PythonRunnerError('aborted', 'startup was cancelled'));
      throw e;
    }
    this.waiters--;
  }

  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    clearTimeout(this.#timer);
    return true;
  }
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new PythonRunnerError('aborted', 'aborted before the interpreter started'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new PythonRunnerError('aborted', 'aborted while the interpreter was starting'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}
