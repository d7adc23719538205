/**
 * Script runners per conversation. One foreground execution per conversation at a time (see
 * conversation-lock.ts for who waits and who is refused). JavaScript runs in the runtime's
 * shared sandbox pool (one VM per conversation, kept between its runs as its session); Python keeps one warm
 * interpreter per conversation so globals persist between runs.
 */
import type { JsRuntime, JsRuntimeOptions } from '../runtime/js/index.ts';
import { PythonRunner, type PythonRunnerOptions } from '../runtime/python/index.ts';
import { ConversationLock, type AcquireOptions, type Acquired } from './conversation-lock.ts';

export class ConversationRunners {
  private readonly lock = new ConversationLock();
  private readonly python = new Map<string, PythonRunner>();
  private js: Promise<JsRuntime> | undefined;

  constructor(
    private readonly jsPoolSize: number,
    private readonly pythonOptions: PythonRunnerOptions,
    private readonly jsOptions: Pick<JsRuntimeOptions, 'engine' | 'pool'> = {},
  ) {}

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

  /** The shared JavaScript runtime, loaded and created on first use (Python-only hosts never load it). */
  javascript(): Promise<JsRuntime> {
    this.js ??= import('../runtime/js/index.ts').then(({ JsRuntime }) => new JsRuntime({ ...this.jsOptions, poolSize: this.jsPoolSize }));
    return this.js;
  }

  /** The conversation's Python interpreter (cold until its first run). */
  pythonFor(conversationId: string): PythonRunner {
    let runner = this.python.get(conversationId);
    if (!runner || runner.state === 'dead') {
      runner = new PythonRunner(this.pythonOptions);
      this.python.set(conversationId, runner);
    }
    return runner;
  }

  /** Ends a conversation's interpreter (its globals are lost). */
  async reclaimPython(conversationId: string): Promise<void> {
    const runner = this.python.get(conversationId);
    this.python.delete(conversationId);
    await runner?.close();
  }

  async close(): Promise<void> {
    this.lock.close();
    await Promise.all([...this.python.values()].map((r) => r.close()));
    this.python.clear();
    if (this.js) await (await this.js).close();
  }
}
