/**
 * Script runners per conversation. One foreground execution per conversation at a time: an
 * execution claims the conversation synchronously, before its first await, so two executions
 * started in the same tick cannot both get in — the second is refused. JavaScript runs in the
 * runtime's sandbox pool (one VM per conversation, fresh for each run); Python keeps one warm interpreter per
 * conversation so globals persist between runs.
 */
import type { JsRuntime, JsRuntimeOptions } from '../runtime/js/index.ts';
import { PythonRunner, type PythonRunnerOptions } from '../runtime/python/index.ts';

export class ConversationRunners {
  private readonly busy = new Set<string>();
  private readonly python = new Map<string, PythonRunner>();
  private js: Promise<JsRuntime> | undefined;
  private closed = false;

  constructor(
    private readonly jsPoolSize: number,
    private readonly pythonOptions: PythonRunnerOptions,
    private readonly jsOptions: Pick<JsRuntimeOptions, 'engine' | 'pool'> = {},
  ) {}

  /** Claims the conversation; returns the release function, or undefined when it is busy. */
  claim(conversationId: string): (() => void) | undefined {
    if (this.closed || this.busy.has(conversationId)) return undefined;
    this.busy.add(conversationId);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy.delete(conversationId);
    };
  }

  isBusy(conversationId: string): boolean {
    return this.busy.has(conversationId);
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
    this.closed = true;
    await Promise.all([...this.python.values()].map((r) => r.close()));
    this.python.clear();
    if (this.js) await (await this.js).close();
  }
}
