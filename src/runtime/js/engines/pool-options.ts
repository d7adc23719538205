/**
 * Bounds of a runtime's sandbox processes, for either engine: how many may live at once, how
 * many runs may wait for one and for how long, and when idle ones are reclaimed.
 */
import os from 'node:os';
import { DEFAULT_SESSION_BUDGET_MB } from '../../session-budget.ts';

export interface JsPoolOptions {
  /**
   * Most sandbox processes at once. Default, QuickJS: the number of cores, at least 2 — one
   * process hosts many conversations' VMs and overlaps their waits for the host, so more
   * processes than cores buy no throughput (measured on 2 cores, bench:scale, 32 conversations:
   * 4 processes 18.8k calls/s and 9.1 MB per added conversation, 2 processes 21.1k/s and 6.1 MB).
   * V8: twice the number of cores, at least 2, since each conversation holds a process of its own.
   */
  maxProcesses?: number;
  /** QuickJS: runs one process serves at once (default 16). */
  runsPerProcess?: number;
  /** Runs that may wait for capacity (default 1,000); more are refused at once. */
  maxQueued?: number;
  /** How long a run may wait for capacity before it is refused (default 30,000 ms). */
  queueTimeoutMs?: number;
  /** QuickJS: a conversation's VM slot is dropped after this long without a run (default 5 minutes). */
  idleVmMs?: number;
  /**
   * A process with nothing to do is reclaimed after this long (default 30 s). V8: a
   * conversation's process is closed after this long without a run.
   */
  idleProcessMs?: number;
  /** QuickJS: processes kept warm however idle (default 1). */
  minProcesses?: number;
  /**
   * QuickJS: MiB the conversations' sessions between runs may hold in all, kept VMs and parked
   * images together, each counted by its VM's whole memory (default 256,
   * `DEFAULT_SESSION_BUDGET_MB`). Past it, the least recently used session of a tenant over its
   * share is dropped (src/runtime/session-budget.ts); that conversation's next run starts
   * fresh and says so (`session.fresh`).
   */
  sessionBudgetMb?: number;
}

export type ResolvedPoolOptions = Required<JsPoolOptions>;

/** A run refused because the processes stayed at capacity (or the runtime closed while it waited). */
export class CapacityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CapacityError';
  }
}

/** A run waiting for capacity in a pool's queue; whoever serves the queue resolves it. */
export interface Waiting<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/**
 * Queues a run (`fields`: what the pool serving `queue` needs to know of it) until it is served,
 * refusing it with a CapacityError at once past `maxQueued` waiting runs or after
 * `queueTimeoutMs`, or with `signal`'s reason. Either outcome takes it out of the queue.
 */
export function waitInQueue<T, W extends Waiting<T>>(
  queue: W[],
  bounds: Pick<ResolvedPoolOptions, 'maxQueued' | 'queueTimeoutMs'>,
  signal: AbortSignal | undefined,
  fields: Omit<W, keyof Waiting<T>>,
): Promise<T> {
  if (queue.length >= bounds.maxQueued) {
    return Promise.reject(new CapacityError(`the sandbox is at capacity: ${queue.length} runs are already waiting (limit maxQueued)`));
  }
  return new Promise<T>((resolve, reject) => {
    const leave = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      const at = queue.indexOf(waiter);
      if (at >= 0) queue.splice(at, 1);
    };
    const waiter = {
      ...fields,
      resolve: (value: T) => {
        leave();
        resolve(value);
      },
      reject: (error: Error) => {
        leave();
        reject(error);
      },
    } as W;
    const onAbort = () => waiter.reject(signal!.reason as Error);
    const timer = setTimeout(
      () => waiter.reject(new CapacityError(`the sandbox stayed at capacity for ${bounds.queueTimeoutMs} ms (limit queueTimeoutMs); try again later`)),
      bounds.queueTimeoutMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    queue.push(waiter);
  });
}

function bounded(value: number | undefined, fallback: number, name: string, min: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || Number.isNaN(v) || v < min) throw new TypeError(`pool.${name} must be a number ≥ ${min}`);
  return v;
}

/** The host's cores, which the default caps scale with. */
export function cores(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

/** Fills in defaults; throws a TypeError naming a bad option. */
export function resolvePoolOptions(options: JsPoolOptions = {}, engine: 'quickjs' | 'v8' = 'quickjs'): ResolvedPoolOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('pool must be an object');
  const maxProcesses = Math.floor(bounded(options.maxProcesses, Math.max(2, (engine === 'v8' ? 2 : 1) * cores()), 'maxProcesses', 1));
  return {
    maxProcesses,
    runsPerProcess: Math.floor(bounded(options.runsPerProcess, 16, 'runsPerProcess', 1)),
    maxQueued: Math.floor(bounded(options.maxQueued, 1_000, 'maxQueued', 0)),
    queueTimeoutMs: bounded(options.queueTimeoutMs, 30_000, 'queueTimeoutMs', 0),
    idleVmMs: bounded(options.idleVmMs, 300_000, 'idleVmMs', 0),
    idleProcessMs: bounded(options.idleProcessMs, 30_000, 'idleProcessMs', 0),
    minProcesses: Math.min(maxProcesses, Math.floor(bounded(options.minProcesses, 1, 'minProcesses', 0))),
    sessionBudgetMb: bounded(options.sessionBudgetMb, DEFAULT_SESSION_BUDGET_MB, 'sessionBudgetMb', 0),
  };
}
