/**
 * The sandbox pool's defaults: a QuickJS process hosts many conversations, so the cap follows the
 * cores; a V8 conversation holds a process of its own, so its cap is twice that.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import { resolvePoolOptions } from '../../../src/runtime/js/engines/pool-options.ts';

const cores = os.availableParallelism();

test('the default process cap: cores for QuickJS, twice the cores for V8, never below 2', () => {
  assert.equal(resolvePoolOptions({}).maxProcesses, Math.max(2, cores));
  assert.equal(resolvePoolOptions({}, 'quickjs').maxProcesses, Math.max(2, cores));
  assert.equal(resolvePoolOptions({}, 'v8').maxProcesses, Math.max(2, 2 * cores));
  assert.equal(resolvePoolOptions({ maxProcesses: 7 }, 'v8').maxProcesses, 7);
  assert.equal(resolvePoolOptions({ maxProcesses: 3, minProcesses: 5 }).minProcesses, 3, 'warm processes never exceed the cap');
});

test('a bad bound is named', () => {
  assert.throws(() => resolvePoolOptions({ maxProcesses: 0 }), /pool\.maxProcesses must be a number ≥ 1/);
  assert.throws(() => resolvePoolOptions({ queueTimeoutMs: Number.NaN }), /pool\.queueTimeoutMs must be a number ≥ 0/);
});

test('QuickJS threads have no OS layer: asking for threads and bubblewrap together is refused, not ignored', async () => {
  const { JsRuntime } = await import('../../../src/runtime/js/index.ts');
  assert.throws(() => new JsRuntime({ quickjsThreads: true, isolation: 'bwrap' }), /quickjsThreads: true has no OS layer; isolation "bwrap" needs the sandbox processes/);
  assert.throws(() => new JsRuntime({ quickjsThreads: 'yes' as never }), /quickjsThreads must be a boolean/);
});

test("quickjsInline was removed: true is refused, false changes nothing", async () => {
  const { JsRuntime } = await import('../../../src/runtime/js/index.ts');
  assert.throws(() => new JsRuntime({ quickjsInline: true }), /quickjsInline was removed: guest code never runs on the host's thread/);
  assert.throws(() => new JsRuntime({ engine: 'v8', quickjsInline: true }), /quickjsInline was removed/);
  assert.throws(() => new JsRuntime({ quickjsInline: 1 as never }), /quickjsInline was removed: .*only false is accepted/);
  const runtime = new JsRuntime({ quickjsInline: false });
  try {
    const result = await runtime.execute('return 1 + 1', { tools: [] });
    assert.equal(result.ok && result.value, 2);
  } finally {
    await runtime.close();
  }
});
