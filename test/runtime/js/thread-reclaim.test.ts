/**
 * Idle sandbox threads that only keep sessions are reclaimed after `idleProcessMs`: their
 * sessions are parked in the host first, so the conversations go on where they were. Before,
 * a thread keeping a session lived until that session's `idleVmMs` (5 min by default): after a
 * burst of 32 conversations, 8 threads of ~19 MB each (issue 46: tree RSS at 32 conversations).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { deferred, tool, valueOf } from './helpers.ts';

/** Waits for `done()`, checking every 20 ms; fails after `limitMs` (generous: a loaded machine). */
async function until(done: () => boolean, limitMs: number, what: string): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!done()) {
    if (performance.now() > deadline) assert.fail(`${what} not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('idle sandbox threads (QuickJS on threads)', () => {
  test('a thread keeping only sessions parks them and goes; the sessions continue elsewhere', async () => {
    // idleVmMs far beyond the test: only the thread's idleness may end it.
    const runtime = new JsRuntime({ quickjsThreads: true, pool: { maxProcesses: 3, minProcesses: 1, idleProcessMs: 200, idleVmMs: 600_000 } });
    try {
      // Three conversations running at once, each on a thread of its own, each leaving a global.
      const gate = deferred<unknown>();
      const held = [tool('wait', () => gate.promise)];
      const runs = ['a', 'b', 'c'].map((name) => runtime.execute(`await tools.wait(); globalThis.mark = '${name}'; return 1;`, { tools: held, conversation: name }));
      await until(() => runtime.stats().processesLive === 3, 60_000, 'three threads');
      gate.resolve(null);
      for (const run of runs) assert.equal(valueOf(await run), 1);
      assert.equal(runtime.stats().processesLive, 3);
      // Idle, the threads beyond minProcesses hand their sessions to the host and end.
      await until(() => runtime.stats().processesLive === 1, 60_000, 'idle threads reclaimed');
      assert.ok(runtime.stats().processesKilled === 0, 'a reclaim is not a kill');
      // Every conversation goes on from its session, wherever it was kept.
      for (const name of ['a', 'b', 'c']) {
        const result = await runtime.execute('return globalThis.mark;', { tools: [], conversation: name });
        assert.equal(valueOf(result), name);
        assert.equal(result.session?.fresh, false, `${name} started fresh`);
      }
    } finally {
      await runtime.close();
    }
  });
});
