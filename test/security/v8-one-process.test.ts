/**
 * `engine: 'v8'` with `pool.maxProcesses: 1` used to serve no conversation's run: the shared
 * pool's warm spare held the only place, the run waited for a process that could never start,
 * and failed after queueTimeoutMs. An idle spare now gives its place to a run that needs one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsRuntime } from '../../src/runtime/js/index.ts';

test('v8 with maxProcesses 1 serves a conversation run while a warm spare exists', async () => {
  const runtime = new JsRuntime({ engine: 'v8', pool: { maxProcesses: 1, queueTimeoutMs: 20_000 } });
  try {
    const first = await runtime.execute('return 1', { tools: [], timeoutMs: 20_000, conversation: 'a' });
    assert.equal(first.ok, true, JSON.stringify(first));
    assert.equal(first.value, 1);
    const second = await runtime.execute('return 2', { tools: [], timeoutMs: 20_000, conversation: 'b' });
    assert.equal(second.ok, true, JSON.stringify(second));
    assert.equal(second.value, 2);
  } finally {
    await runtime.close();
  }
});
