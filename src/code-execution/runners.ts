/**
 * Script runners per conversation. One foreground execution per conversation at a time (see
 * conversation-lock.ts for who waits and who is refused). JavaScript runs in the runtime's
 * shared sandbox pool (one VM per conversation, kept between its runs as its session); Python
 * keeps one warm interpreter per conversation so globals persist between runs, at most
 * `maxPythonInterpreters` of them: past that the least recently used idle one is ended (its
 * conversation starts afresh), and an interpreter ended by its idle timeout leaves the map, so
 * a long-lived host serving many conversations stays flat.
 */
import { JsRuntime, type JsRuntimeOptions } from '../runtime/js/index.ts';
import { PythonRunner, type PythonRunnerOptions } from '../runtime/python/index.ts';
import { ConversationLock, type AcquireOptions, type Acquired } from './conversation-lock.ts';
import { overBudget, type HeldSession } from '../runtime/session-budget.ts';

/** Default cap on warm Python interpreters per host: ~24 MB each, so ~200 MB at most. */
export const DEFAULT_MAX_PYTHON_INTERPRETERS = 8;

/**
 * Longest `close()` takes: 5 s. It kills every interpreter (SIGKILL to its process group or
 * namespace), every start-up probe, and every JavaScript sandbox thread or process, then waits
 * for them to be gone; a kill is answered in milliseconds, so the bound is only reached on a
 * machine too loaded to reap a process, and then close() returns anyway (what remains is
 * already killed and unreferenced: it cannot hold the host's process open).
 */
export const CLOSE_LIMIT_MS = 5_000;

export class ConversationRunners {
  private readonly lock = new ConversationLock();
  /** In least-recently-used order: the first entry is the next to be evicted. */
  private readonly python = new Map<string, PythonRunner>();
  private js: Promise<JsRuntime> | undefined;

  constructor(
    private readonly jsPoolSize: number,
    private readonly pythonOptions: PythonRunnerOptions,
    private readonly jsOptions: Pick<JsRuntimeOptions, 'engine' | 'pool' | 'isolation' | 'quickjsThreads' | 'quickjsInline' | 'caps'> = {},
    private readonly maxPythonInterpreters = DEFAULT_MAX_PYTHON_INTERPRETERS,
  ) {
    if (!Number.isInteger(maxPythonInterpreters) || maxPythonInterpreters < 1) {
      throw new RangeError(`maxPythonInterpreters must be a positive integer, got ${maxPythonInterpreters}`);
    }
  }

  /**
   * Takes the conversation for one execution: a lease (synchronously when it is free), or why
   * the execution was not run. Release the lease once the script has stopped.
   */
  claim(conversationId: string, options: AcquireOptions): Acquired | Promise<Acquired> {
    return this.lock.acquire(conversationId, options);
  }

  isBusy(conversationId: string): boolean {
    return this.lock.isBusy(conversationId);
  }

  /**
   * The shared JavaScript runtime, created on first use (Python-only hosts never start it).
   * Created synchronously, so that its sandbox thread starts in the caller's turn: it was a
   * dynamic import, whose module loading stood between registerCodeExecution and the thread's
   * start (and then behind whatever the first dispatch did meanwhile on this thread).
   */
  javascript(): Promise<JsRuntime> {
    if (this.js === undefined) {
      try {
        this.js = Promise.resolve(new JsRuntime({ ...this.jsOptions, poolSize: this.jsPoolSize }));
      } catch (error) {
        this.js = Promise.reject(error);
      }
    }
    return this.js;
  }

  /**
   * The conversation's Python interpreter (cold until its first run), now the most recently
   * used; may end the least recently used idle one to stay within `maxPythonInterpreters`.
   */
  pythonFor(conversationId: string): PythonRunner {
    let runner = this.python.get(conversationId);
    this.python.delete(conversationId);
    if (!runner || runner.state === 'dead') {
      const fresh: PythonRunner = new PythonRunner({
        ...this.pythonOptions,
        onIdleReclaimed: () => {
          if (this.python.get(conversationId) === fresh) this.python.delete(conversationId);
          this.pythonOptions.onIdleReclaimed?.();
        },
      });
      runner = fresh;
    }
    this.python.set(conversationId, runner);
    this.trimPython();
    return runner;
  }

  /** Conversations holding a Python runner (each with at most one interpreter). */
  get pythonConversations(): number {
    return this.python.size;
  }

  /**
   * Ends runners past the cap: the least recently used of a tenant holding more than its share
   * (src/runtime/session-budget.ts), so one tenant's many conversations end that tenant's own
   * interpreters, not another's. A runner in use (its conversation is claimed, or it is
   * running) is skipped but counts for its tenant, so the cap is exceeded only while more
   * conversations than that run Python at the same moment; the next call trims again.
   */
  private trimPython(): void {
    if (this.python.size <= this.maxPythonInterpreters) return;
    const newest = [...this.python.keys()].at(-1);
    const held: HeldSession[] = [];
    let order = 0;
    for (const [id, runner] of this.python) {
      const pinned = id === newest || this.lock.isBusy(id) || runner.state === 'busy' || runner.state === 'starting';
      held.push({ name: id, bytes: 1, lastUsed: order++, pinned });
    }
    for (const id of overBudget(held, this.maxPythonInterpreters)) {
      const runner = this.python.get(id)!;
      this.python.delete(id);
      void runner.close();
    }
  }

  /**
   * The conversation is over: its Python interpreter is ended and its JavaScript VM freed (at
   * once, or once a run still in progress is over). Its lock needs nothing: it is gone as soon
   * as no execution holds or waits for it.
   */
  async endConversation(conversationId: string): Promise<void> {
    if (this.js !== undefined) (await this.js).endConversation(conversationId);
    await this.reclaimPython(conversationId);
  }

  /** Ends a conversation's interpreter (its globals are lost). */
  async reclaimPython(conversationId: string): Promise<void> {
    const runner = this.python.get(conversationId);
    this.python.delete(conversationId);
    await runner?.close();
  }

  /** Ends every interpreter, probe and sandbox; returns when they are gone, or after {@link CLOSE_LIMIT_MS}. */
  async close(): Promise<void> {
    this.lock.close();
    const python = [...this.python.values()].map((r) => r.close());
    this.python.clear();
    const js = this.js?.then((runtime) => runtime.close());
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_LIMIT_MS)));
    try {
      await Promise.race([Promise.all([...python, js]), limit]);
    } finally {
      clearTimeout(timer);
    }
  }
}
