/**
 * The JavaScript sandbox: runs a model-written script whose only capability is calling the
 * tools it is given. A worker thread per runtime slot (kept warm), a fresh `vm` context per
 * run with code generation from strings and wasm disabled, and one bridge held by a prelude
 * that passes only strings and numbers across.
 *
 * @example
 * ```ts
 * const runtime = new JsRuntime();
 * const result = await runtime.execute('const r = await tools.add({ a: 1, b: 2 }); return r * 10;', {
 *   tools: [{ name: 'add', invoke: async ({ a, b }: any) => a + b }],
 *   timeoutMs: 5_000,
 * });
 * // result: { ok: true, value: 30, logs: [], calls: [{ name: 'add', status: 'ok', durationMs: 0 }] }
 * await runtime.close();
 * ```
 */
import type { ToolBinding } from '../types.ts';
import { resolveLimits, type JsLimits } from './limits.ts';
import { WorkerPool, type SandboxWorker } from './pool.ts';
import { JsRun, type ExecuteResult } from './run.ts';

export interface JsRuntimeOptions {
  /** Warm spare workers kept ready (default 1). */
  poolSize?: number;
  /** Default limits for every run. */
  limits?: Partial<JsLimits>;
}

export interface ExecuteOptions {
  tools: readonly ToolBinding[];
  /** Shorthand for `limits.timeoutMs`. */
  timeoutMs?: number;
  /** Aborting ends the run as `aborted` (the worker is terminated). */
  signal?: AbortSignal;
  limits?: Partial<JsLimits>;
}

/** How long a worker may take to answer the end-of-run liveness check before it is replaced. */
const LIVENESS_MS = 250;

export class JsRuntime {
  private readonly pool: WorkerPool;
  private readonly limits: JsLimits;
  private readonly live = new Set<SandboxWorker>();
  private closed = false;

  constructor(options: JsRuntimeOptions = {}) {
    this.limits = resolveLimits(options.limits);
    this.pool = new WorkerPool(options.poolSize ?? 1, this.limits.heapMb);
    this.pool.topUp();
  }

  /** Runs `code` as the body of an async function. Never rejects for a script failure. */
  async execute(code: string, options: ExecuteOptions): Promise<ExecuteResult> {
    if (typeof code !== 'string') throw new TypeError('code must be a string');
    const limits = resolveLimits(this.limits, options.limits, options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : undefined);
    const empty = { logs: [], calls: [] };
    if (this.closed) return { ok: false, error: { kind: 'aborted', message: 'the runtime is closed' }, ...empty };
    if (options.signal?.aborted) return { ok: false, error: { kind: 'aborted', message: 'the run was aborted before it started' }, ...empty };
    const heapMb = limits.heapMb;
    let worker: SandboxWorker;
    try {
      worker = heapMb === this.limits.heapMb ? await this.pool.take() : await new WorkerPool(0, heapMb).take();
    } catch (error) {
      return { ok: false, error: { kind: 'sandbox', message: `the sandbox could not start: ${(error as Error).message}` }, ...empty };
    }
    this.live.add(worker);
    const run = new JsRun(worker, code, options.tools, limits, options.signal, (w, healthy) => this.recycle(w, healthy, heapMb));
    run.start();
    return run.result;
  }

  /** After a run: reuse the worker only if it answers a liveness check; a script can leave a spin behind. */
  private recycle(worker: SandboxWorker, healthy: boolean, heapMb: number): void {
    if (!healthy || this.closed || heapMb !== this.limits.heapMb) {
      this.retire(worker);
      return;
    }
    this.pool.beginReturn();
    let settled = false;
    const settle = (alive: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (alive) {
        this.live.delete(worker);
        this.pool.release(worker);
      } else {
        this.retire(worker);
      }
      this.pool.settleReturn();
    };
    const timer = setTimeout(() => settle(false), LIVENESS_MS);
    worker.onFailure = () => settle(false);
    worker.onMessage = (message) => {
      if (message.t === 'pong') settle(true);
    };
    worker.post({ t: 'end', id: 0 });
  }

  private retire(worker: SandboxWorker): void {
    this.live.delete(worker);
    worker.terminate();
    if (!this.closed) this.pool.topUp();
  }

  /** Terminates every worker; runs in progress end as `sandbox` failures. */
  async close(): Promise<void> {
    this.closed = true;
    this.pool.close();
    for (const worker of this.live) worker.terminate();
    this.live.clear();
  }
}
