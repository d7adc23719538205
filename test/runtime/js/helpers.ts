/** Shared pieces of the JavaScript sandbox tests. */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import type { ExecuteResult } from '../../../src/runtime/js/index.ts';
import type { ToolBinding } from '../../../src/runtime/types.ts';

/** A tool binding; by default it answers with its arguments. */
export function tool(name: string, invoke: ToolBinding['invoke'] = async (args) => args): ToolBinding {
  return { name, invoke };
}

/** A global helper binding. */
export function global(name: string, invoke: ToolBinding['invoke']): ToolBinding {
  return { name, kind: 'global', invoke };
}

/** A promise with its settle functions, for tools the test finishes by hand. */
export function deferred<T = unknown>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The value of a successful run; fails the test with the error otherwise. */
export function valueOf(result: ExecuteResult): unknown {
  assert.ok(result.ok, `run failed: ${result.ok ? '' : `${result.error.kind}: ${result.error.name}: ${result.error.message}`}`);
  return result.value;
}

/** The error of a failed run. */
export function errorOf(result: ExecuteResult): Exclude<ExecuteResult, { ok: true }>['error'] {
  assert.ok(!result.ok, `run succeeded with ${JSON.stringify(result.ok ? result.value : undefined)}`);
  return result.error;
}

/** Unhandled rejections seen in the host while these tests ran; there must be none. */
const hostRejections: unknown[] = [];
process.on('unhandledRejection', (reason) => hostRejections.push(reason));
// Every test file imports this module, so every file ends with this check.
after(() => assert.deepEqual(hostRejections, [], 'unhandled rejections in the host'));

const watched: Array<[string, object]> = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['Promise.prototype', Promise.prototype],
  ['Error', Error],
  ['JSON', JSON],
  ['globalThis', globalThis],
];
const before = new Map(watched.map(([name, object]) => [name, Reflect.ownKeys(object).map(String).sort()]));

/** Fails on unhandled host rejections, or if a watched host object gained or lost a property since this module loaded. */
export function assertHostUnpolluted(): void {
  assert.deepEqual(hostRejections, [], 'unhandled rejections in the host');
  for (const [name, object] of watched) {
    assert.deepEqual(Reflect.ownKeys(object).map(String).sort(), before.get(name), `${name} changed`);
  }
  assert.equal(typeof JSON.stringify, 'function');
  assert.equal(JSON.stringify({ a: 1 }), '{"a":1}');
  assert.equal((Promise.prototype.then as unknown as { name: string }).name, 'then');
}
