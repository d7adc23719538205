/**
 * The JavaScript sandbox: runs a model-written script whose only capability is calling the
 * tools it is given. Two engines:
 * - `quickjs` (default): each run executes in a QuickJS VM compiled to WebAssembly, which shares
 *   no object with Node; one VM per conversation, run on worker threads of the host (one running
 *   VM per thread) or, with the OS layer, in a bounded pool of sandbox processes (engines/quickjs/).
 * - `v8`: each run gets a fresh V8 context (code generation from strings and wasm off) inside a
 *   warm sandbox process of its own; a prelude inside the context holds the bridge. Faster, but
 *   the script shares an isolate with Node's own code; a process never serves two conversations.
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
import type { DurableReads } from '../durable-reads.ts';
import type { OutputListener, RunError, ToolBinding } from '../types.ts';
import { newCatalogId, PerCatalog, ToolCatalog } from '../catalog.ts';
import { PLAN_CHUNK, planBindings, planBindingsInSteps, type BindingPlan } from './bindings.ts';
import { checkLimits, resolveLimits, type JsLimits } from './limits.ts';
import { CapacityError, cores, resolvePoolOptions, type JsPoolOptions } from './engines/pool-options.ts';
import { QuickjsPool } from './engines/quickjs/pool.ts';
import { V8Processes } from './engines/v8/processes.ts';
import { PoolClosedError } from './engines/v8/warm-pool.ts';
import { checkCaps, JS_PROCESS_CAPS, type IsolationMode, type ScriptCaps } from '../isolation/index.ts';
import type { SandboxProcess } from './sandbox-process.ts';
import { abortMessage, RunSession, type ExecuteResult, type RunProcess, type SessionRelease } from './session.ts';

/** The engine that runs scripts; see {@link JsRuntimeOptions.engine}. */
export type JsEngine = 'quickjs' | 'v8';

export interface JsRuntimeOptions {
  /**
   * `quickjs` (default): QuickJS compiled to WebAssembly, sharing no object with Node, one VM
   * per conversation in a bounded shared pool of processes. `v8`: V8 `vm` contexts, one process
   * per conversation; only for trusted script authors.
   */
  engine?: JsEngine;
  /** Bounds of the sandbox processes (cap, queue, idle reclaim); both engines. */
  pool?: JsPoolOptions;
  /**
   * The OS layer around every sandbox process (src/runtime/isolation): `auto` (default) runs
   * it under bubblewrap when that works here, `bwrap` fails closed without it, `none` skips it.
   */
  isolation?: IsolationMode;
  /**
   * Kernel-enforced caps on each sandbox process (docs/security.md, "Caps on script
   * processes"); what is left out keeps its default: V8 `memoryBytes` max(2 GiB, heap limit +
   * 1 GiB) of writable memory (RLIMIT_DATA), QuickJS none; `processes` 64; `cpuSeconds` none;
   * `tmpBytes` 64 MiB under bubblewrap. `Infinity` lifts one. QuickJS on threads
   * (`quickjsThreads`) has no process to cap: there they do not apply.
   */
  caps?: ScriptCaps;
  /**
   * QuickJS: run the VMs on worker threads of the host, one running VM per thread, instead of
   * in shared sandbox processes (no OS layer then: the WebAssembly VM is the boundary). A busy
   * or hung VM holds only its thread and is ended alone; a kept session never waits behind
   * another conversation's run (it is parked in the host and restored on a free thread).
   * Default: true, unless `isolation` is `'bwrap'`; `true` with `'bwrap'` is a TypeError.
   * `pool.maxProcesses` bounds the threads (default twice the cores, at least 4, and as many
   * again for runs waiting behind runs that have held every thread 100 ms or more);
   * `runsPerProcess` is 1.
   */
  quickjsThreads?: boolean;
  /** Removed (guest code never runs on the host's event loop): only `false` is accepted; it changes nothing. */
  quickjsInline?: boolean;
  /** V8 engine: warm spare sandbox processes kept ready beyond those serving runs (default 1). */
  poolSize?: number;
  /** Default limits for every run of this runtime. */
  limits?: Partial<JsLimits>;
  /**
   * Entry file of the sandbox process. Only for tests and bundlers that relocate
   * `engines/v8/main.mjs`; the process protocol is internal.
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
  /** Processes alive now (QuickJS engine; 0 for V8). */
  processesLive: number;
  /** Conversations holding a VM now (QuickJS engine). */
  conversations: number;
  /** QuickJS: bytes the sessions between runs hold now, kept VMs and parked images (the `pool.sessionBudgetMb` budget); 0 for V8. */
  sessionBytes: number;
  /**
   * Runs whose frame carried their tool catalog (the binding plan) to the sandbox process:
   * a process that already holds the catalog is only told its id.
   */
  catalogsSent: number;
  /**
   * QuickJS: runs whose VM installed its bindings; a conversation's VM keeps them installed
   * between runs of the same catalog.
   */
  catalogInstalls: number;
}

export interface ExecuteOptions {
  /**
   * Tools (`tools.<name>`) and globals (top-level helpers) the script may call. A
   * {@link ToolCatalog} given to many runs is planned once and sent to each sandbox process
   * once; an array is planned on every run.
   */
  tools: readonly ToolBinding[] | ToolCatalog;
  /** Handed to every binding this run calls as `ctx.scope` (per-run state for shared bindings). */
  scope?: unknown;
  /** Shorthand for `limits.timeoutMs`; wins over it. */
  timeoutMs?: number;
  /** Aborting ends the run as `aborted`; its sandbox process is killed. */
  signal?: AbortSignal;
  /** Limits for this run, over the runtime's. */
  limits?: Partial<JsLimits>;
  /**
   * The conversation this run belongs to. Runs of one conversation share its VM's process
   * (QuickJS) or its process (V8); nothing passes between conversations. Without it the run
   * is on its own.
   */
  conversation?: string;
  /**
   * Report where in the script each tool call was made (`ToolCallContext.site`), for approval
   * prompts. Costs a stack capture per call; off by default.
   */
  callSites?: boolean;
  /** Told each console and print line as it reaches the host, while the script runs. */
  onOutput?: OutputListener;
  /** A durable run: its seed and journaled clock reads, and where new reads go (QuickJS; docs/durable.md). */
  durable?: DurableReads;
  /**
   * Start a fresh session: drop whatever earlier runs of the conversation left on the global
   * object (QuickJS). The result's `session.fresh` is then true.
   */
  reset?: boolean;
}

const withoutRun = { logs: [], calls: [] };

/**
 * Whether QuickJS VMs run on worker threads of the host (the default) or in the pool of sandbox
 * processes: threads unless the operator asked for the OS layer (`isolation: 'bwrap'`) or turned
 * them off. Threads have no OS layer of their own, so asking for both is refused, not ignored.
 */
function quickjsOnThreads(options: JsRuntimeOptions): boolean {
  const { quickjsThreads, isolation } = options;
  if (quickjsThreads !== undefined && typeof quickjsThreads !== 'boolean') throw new TypeError('quickjsThreads must be a boolean');
  if (quickjsThreads === true && isolation === 'bwrap') {
    throw new TypeError('quickjsThreads: true has no OS layer; isolation "bwrap" needs the sandbox processes (quickjsThreads: false)');
  }
  return quickjsThreads ?? isolation !== 'bwrap';
}

function failure(error: RunError): ExecuteResult {
  return { ok: false, error, ...withoutRun };
}

export class JsRuntime {
  private readonly limits: JsLimits;
  /** The engine of this runtime. */
  readonly engine: JsEngine;
  private readonly quickjs: QuickjsPool | undefined;
  private readonly v8: V8Processes | undefined;
  private readonly sessions = new Set<RunSession>();
  private readonly plans = new PerCatalog<BindingPlan>((bindings, catalog) => {
    const plan = planBindings(bindings, catalog?.id ?? 0);
    if (catalog === undefined) plan.id = this.shapeId(plan.config);
    return plan;
  });
  /** Catalog ids of arrays of bindings, by their plan's text, most recently used last. */
  private readonly shapes = new Map<string, number>();
  private readonly counts = { catalogsSent: 0, catalogInstalls: 0 };
  private nextRun = 1;
  private closed = false;

  /** Starts the warm pool right away. Throws a TypeError for invalid options. */
  constructor(options: JsRuntimeOptions = {}) {
    const poolSize = options.poolSize ?? 1;
    if (!Number.isSafeInteger(poolSize) || poolSize < 0) throw new TypeError('poolSize must be a whole number ≥ 0');
    this.limits = resolveLimits({ limits: options.limits, where: 'limits' });
    if (options.quickjsInline !== undefined && options.quickjsInline !== false) throw new TypeError("quickjsInline was removed: guest code never runs on the host's thread (QuickJS runs on worker threads or in sandbox processes); only false is accepted");
    const engine = options.engine ?? 'quickjs';
    if (engine !== 'quickjs' && engine !== 'v8') throw new TypeError('engine must be "quickjs" or "v8"');
    this.engine = engine;
    const pool = resolvePoolOptions(options.pool, engine);
    // Checked now (a TypeError names the bad key), not at the first process's start.
    if (options.caps !== undefined) checkCaps(options.caps, JS_PROCESS_CAPS);
    if (engine === 'quickjs') {
      const threads = quickjsOnThreads(options);
      const threadPool = threads && options.pool?.maxProcesses === undefined
        ? { ...pool, maxProcesses: Math.max(4, 2 * cores()), minProcesses: Math.min(pool.minProcesses, Math.max(4, 2 * cores())) }
        : pool;
      // Threads beyond the default cap only for runs waiting behind long ones (pool.ts, FAIR_SLICE_MS);
      // an operator's own maxProcesses is a hard cap.
      const overflow = threads && options.pool?.maxProcesses === undefined ? threadPool.maxProcesses : 0;
      this.quickjs = new QuickjsPool(threadPool, { entry: options.sandboxEntry, isolation: options.isolation, caps: options.caps }, threads, overflow);
      this.quickjs.warm();
    } else {
      this.v8 = new V8Processes({
        spare: poolSize,
        heapMb: this.limits.heapMb,
        process: { entry: options.sandboxEntry, contextify: options.fallbackContext === true, isolation: options.isolation, caps: options.caps },
        pool,
      });
      this.v8.warm();
    }
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
    // A large catalog is planned in steps (bindings.ts PLAN_CHUNK): the first run after a
    // change of 10,000 tools costs the event loop ten short steps, not one 40–60 ms one.
    const plan = options.tools instanceof ToolCatalog && options.tools.bindings.length > PLAN_CHUNK
      ? await this.plans.getInSteps(options.tools, (bindings, catalog) => planBindingsInSteps(bindings, catalog.id))
      : this.plans.get(options.tools);
    const { signal, conversation } = options;
    if (conversation !== undefined && (typeof conversation !== 'string' || conversation === '')) {
      throw new TypeError('options.conversation must be a non-empty string');
    }
    if (this.closed) return failure({ kind: 'aborted', message: 'the runtime is closed' });
    if (signal?.aborted) return failure({ kind: 'aborted', message: abortMessage(signal) });
    const runId = this.nextRun++;
    if (this.quickjs !== undefined) {
      const pool = this.quickjs;
      try {
        const channel = await pool.acquire(conversation, runId, limits, signal, options.reset === true);
        const session = await this.run(channel, runId, code, plan, options, limits, signal, {
          returning: () => pool.finishing(channel),
          release: () => pool.release(channel),
        });
        pool.settleSession(channel, session.reported.kept === true, session.reported.mem ?? 0);
        const result = await session.result;
        result.session = { fresh: session.reported.fresh ?? channel.fresh };
        return result;
      } catch (error) {
        return this.refused(error, signal) ?? failure({ kind: 'sandbox', message: `the sandbox could not start: ${(error as Error).message}` });
      }
    }
    let slot: Awaited<ReturnType<V8Processes['pool']>>;
    try {
      slot = await this.v8!.pool(limits.heapMb, conversation, signal);
    } catch (error) {
      const refused = this.refused(error, signal);
      if (refused === undefined) throw error;
      return refused;
    }
    const { pool } = slot;
    try {
      let process: SandboxProcess;
      try {
        process = await pool.acquire(signal);
      } catch (error) {
        if (signal?.aborted) return failure({ kind: 'aborted', message: abortMessage(signal) });
        if (error instanceof PoolClosedError) return failure({ kind: 'aborted', message: 'the runtime is closed' });
        return failure({ kind: 'sandbox', message: `the sandbox could not start: ${(error as Error).message}` });
      }
      const session = await this.run(process, runId, code, plan, options, limits, signal, {
        returning: () => pool.returningSoon(),
        release: (p, healthy, wasReturning) => pool.release(p as SandboxProcess, healthy, wasReturning),
      });
      // V8: every run gets a fresh context, so no binding persists between runs.
      const result = await session.result;
      result.session = { fresh: true };
      return result;
    } finally {
      slot.done();
    }
  }

  /** A run that could not get its place: aborted, the runtime closed, or at capacity (undefined: none of these). */
  private refused(error: unknown, signal: AbortSignal | undefined): ExecuteResult | undefined {
    if (signal?.aborted) return failure({ kind: 'aborted', message: abortMessage(signal) });
    if (this.closed) return failure({ kind: 'aborted', message: 'the runtime is closed' });
    if (error instanceof CapacityError) return failure({ kind: 'sandbox', message: error.message });
    return undefined;
  }

  private async run(
    process: RunProcess,
    runId: number,
    code: string,
    plan: BindingPlan,
    options: ExecuteOptions,
    limits: JsLimits,
    signal: AbortSignal | undefined,
    owner: SessionRelease,
  ): Promise<RunSession> {
    const session = new RunSession(process, runId, code, plan, { sites: options.callSites === true, scope: options.scope, onOutput: options.onOutput, durable: options.durable }, limits, signal, owner);
    this.sessions.add(session);
    session.start();
    if (session.catalogSent) this.counts.catalogsSent++;
    try {
      await session.result;
      if (session.reported.bound === true) this.counts.catalogInstalls++;
      return session;
    } finally {
      this.sessions.delete(session);
    }
  }

  /**
   * The conversation is over: QuickJS frees its VM in its shared process, V8 closes its
   * process — now, or once its runs in progress are over. A later run under the same name
   * starts afresh (`session.fresh`).
   */
  endConversation(conversation: string): void {
    this.quickjs?.endConversation(conversation);
    this.v8?.endConversation(conversation);
  }

  /** Counts of sandbox processes over the runtime's life. */
  stats(): JsRuntimeStats {
    if (this.v8 !== undefined) {
      const { started, killed, live, conversations } = this.v8.stats();
      return { processesStarted: started, processesKilled: killed, processesLive: live, conversations, sessionBytes: 0, ...this.counts };
    }
    const q = this.quickjs!;
    const { processes, conversations, sessionBytes } = q.size;
    return { processesStarted: q.counts.started, processesKilled: q.counts.killed, processesLive: processes, conversations, sessionBytes, ...this.counts };
  }

  /**
   * The catalog id of an array of bindings: arrays of the same shape share one, so that a
   * sandbox holding it is not sent it again (a few shapes are remembered).
   */
  private shapeId(config: string): number {
    let id = this.shapes.get(config);
    if (id !== undefined) this.shapes.delete(config);
    else id = newCatalogId();
    this.shapes.set(config, id);
    if (this.shapes.size > 16) this.shapes.delete(this.shapes.keys().next().value!);
    return id;
  }

  /** Ends runs in progress as `aborted` and kills every sandbox process. */
  async close(): Promise<void> {
    this.closed = true;
    for (const session of [...this.sessions]) session.abort('the runtime was closed');
    await Promise.all([this.v8?.close(), this.quickjs?.close()]);
  }
}
