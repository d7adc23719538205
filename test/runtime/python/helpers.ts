import type { ToolBinding, ToolCallContext } from '../../../src/runtime/types.ts';

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

export function deferred<T = unknown>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Polls a condition the code under test exposes no event for (e.g. a process going away). */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

export function tool(name: string, invoke: (args: unknown, ctx: ToolCallContext) => Promise<unknown>, kind?: 'tool' | 'global'): ToolBinding {
  return kind ? { name, invoke, kind } : { name, invoke };
}

/** An error shaped like a tool's error result. */
export function toolError(message: string): Error {
  const err = new Error(message);
  err.name = 'ToolError';
  return err;
}
