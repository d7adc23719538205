/**
 * The JavaScript sandbox: runs a model-written script whose only capability is calling the
 * tools it is given. Each run gets a fresh V8 context (code generation from strings and wasm
 * off) inside a warm sandbox process; one bridge, held by a prelude inside the context, passes
 * only strings and numbers across.
 *
 * @example
 * ```ts
 * const runtime = new JsRuntime();
 * const result = await runtime.execute('const r = await tools.add({ a: 1, b: 2 }); return r * 10;', {
 *   tools: [{ name: 'add', invoke: async (args) => (args as { a: number; b: number }).a + (args as { a: number; b: number }).b }],
 *   timeoutMs: 5_000,
 * });
 * // result: { ok: true, value: 30, logs: [], calls: [{ name: 'add', status: 'ok', durationMs: 0.2 }] }
 * await runtime.close();
 * ```
 */
import type { RunError, ToolBinding } from '../types.ts';
import { planBindings, type BindingPlan } from './bindings.ts';
import { checkLimits, resolveLimits, type JsLimits } from './limits.ts';
import { PoolClosedError, SandboxPool } from './pool.ts';
import type { SandboxProcess } from './sandbox-process.ts';
import { abortMessage, RunSession, type ExecuteResult } from './session.ts';

export interface JsRuntimeOptions {
  /** Warm spare sandbox processes kept ready beyond those serving runs (default 1). */
  poolSize?: number;
  /** Default limits for every run of this runtime. */
  limits?: Partial<JsLimits>;
  /**
   * Entry file of the sandbox process. Only for tests and bundlers that relocate
   * `child/main.mjs`; the process protocol is internal.
   */
  sandboxEntry?: string;
  /**
   * Testing only: give scripts the fallback global (a contextified null-prototype object), as
   * on Node versions without `vm.constants.DONT_CONTEXTIFY`.
   */
  fallbackContext?: boolean;
}

/** Sandbox processes this runtime started and killed (after a timeout, abort, crash or failed liveness check). */
export interface JsRuntimeStats {
  processesStarted: number;
  processesKilled: number;
}

export interface ExecuteOptions {
  /** Tools (`tools.<name>`) and globals (top-level helpers) the script may call. */
  tools: readonly ToolBinding[];
  /** Shorthand for `limits.timeoutMs`; wins over it. */
  timeoutMs?: number;
  /** Aborting ends the run as `aborted`; its sandbox process is killed. */
  signal?: AbortSignal;
  /** Limits for this run, over the runtime's. */
  limits?: Partial<JsLimits>;
}

const withoutRun = { logs: [], calls: [] };

function failure(error: RunError): ExecuteResult {
  return { ok: false, error, ...withoutRun };
}

export class JsRuntime {
  private readonly limits: JsLimits;
  private readonly poolSize: number;
  private readonly entry: string | undefined;
  private readonly fallbackContext: boolean;
  private readonly pools = new Map<number, SandboxPool>();
  private readonly sessions = new Set<RunSession>();
  private nextRun = 1;
  private closed = false;

  /** Starts the warm pool right away. Throws a TypeError for invalid options. */
  constructor(options: JsRuntimeOptions = {}) {
    const poolSize = options.poolSize ?? 1;
    if (!Number.isSafeInteger(poolSize) || poolSize < 0) throw new TypeError('poolSize must be a whole number ≥ 0');
    this.poolSize = poolSize;
    this.limits = resolveLimits({ limits: options.limits, where: 'limits' });
    this.entry = options.sandboxEntry;
    this.fallbackContext = options.fallbackContext === true;
    this.poolFor(this.limits.heapMb).warm();
  }

  /**
   * Runs `code` as the body of an async function (top-level `await` and `return` work).
   * Resolves with the outcome, logs and calls; never rejects for a script failure. Rejects
   * with a TypeError for invalid arguments (not a string, malformed bindings or limits).
   */
  async execute(code: string, options: ExecuteOptions): Promise<ExecuteResult> {
    if (typeof code !== 'string') throw new TypeError('code must be a string');
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
    if (options.timeoutMs !== undefined) checkLimits({ timeoutMs: options.timeoutMs }, 'options');
    const limits = resolveLimits(
      { limits: this.limits, where: 'limits' },
      { limits: options.limits, where: 'options.limits' },
      { limits: options.timeoutMs === undefined ? undefined : { timeoutMs: options.timeoutMs }, where: 'options' },
    );
    const plan = planBindings(options.tools);
    const { signal } = options;
    if (this.closed) return failure({ kind: 'aborted', message: 'the runtime is closed' });
    if (signal?.aborted) return failure({ kind: 'aborted', message: abortMessage(signal) });
    const pool = this.poolFor(limits.heapMb);
    let process: SandboxProcess;
    try {
      process = await pool.acquire(signal);
    } catch (error) {
      if (signal?.aborted) return failure({ kind: 'aborted', message: abortMessage(signal) });
      if (error instanceof PoolClosedError) return failure({ kind: 'aborted', message: 'the runtime is closed' });
      return failure({ kind: 'sandbox', message: `the sandbox could not start: ${(error as Error).message}` });
    }
    return this.run(process, pool, code, plan, limits, signal);
  }

  private async run(
    process: SandboxProcess,
    pool: SandboxPool,
    code: string,
    plan: BindingPlan,
    limits: JsLimits,
    signal: AbortSignal | undefined,
  ): Promise<ExecuteResult> {
    const session = new RunSession(process, this.nextRun++, code, plan, limits, signal, {
      returning: () => pool.returningSoon(),
      release: (p, healthy, wasReturning) => pool.release(p, healthy, wasReturning),
    });
    this.sessions.add(session);
    session.start();
    try {
      return await session.result;
    } finally {
      this.sessions.delete(session);
    }
  }

  private poolFor(heapMb: number): SandboxPool {
    let pool = this.pools.get(heapMb);
    if (pool === undefined) {
      // Only the runtime's own heap size keeps spares; other sizes keep one process for reuse.
      const spare = heapMb === this.limits.heapMb ? this.poolSize : 0;
      pool = new SandboxPool(spare, { heapMb, entry: this.entry, contextify: this.fallbackContext });
      this.pools.set(heapMb, pool);
    }
    return pool;
  }

  /** Counts of sandbox processes over the runtime's life. */
  stats(): JsRuntimeStats {
    let processesStarted = 0;
    let processesKilled = 0;
    for (const pool of this.pools.values()) {
      processesStarted += pool.counts.started;
      processesKilled += pool.counts.killed;
    }
    return { processesStarted, processesKilled };
  }

  /** Ends runs in progress as `aborted` and kills every sandbox process. */
  async close(): Promise<void> {
    this.closed = true;
    for (const session of [...this.sessions]) session.abort('the runtime was closed');
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }
}
