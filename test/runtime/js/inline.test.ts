/**
 * QuickJS inline: VMs run on the host's own thread (engines/quickjs/inline.ts) until a slice
 * runs too long, then the run moves to a worker thread, which runs it again from its start
 * (pool.ts `move`). What a script sees must not show the move, and what a neighbour sees of a
 * script that holds the host's thread is bounded: one slice, then a cooldown.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { valueOf } from './helpers.ts';

/** The longest the host's event loop went without running a timer while `work` ran. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 1);
  try {
    const value = await work();
    stallMs = Math.max(stallMs, performance.now() - last);
    return { value, stallMs };
  } finally {
    clearInterval(timer);
  }
}

describe('QuickJS inline', () => {
  // A runtime per case: where a run is placed depends on the sessions and the cooldown that
  // earlier cases left behind (a session kept on the host's thread keeps newcomers off it).
  let runtime: JsRuntime;
  beforeEach(() => {
    runtime = new JsRuntime({ engine: 'quickjs', quickjsInline: true, limits: { timeoutMs: 60_000 } });
  });
  afterEach(() => runtime.close());

  test('a run that spins on the host thread moves to a worker thread and goes on as if it had not', async () => {
    const seen: unknown[] = [];
    const mark = { name: 'mark', invoke: async (args: unknown) => (seen.push(args), seen.length) };
    const before = runtime.stats();
    const result = await runtime.execute(
      `const t0 = Date.now(); const r0 = Math.random();
       const first = await tools.mark({ t0, r0 });
       console.log('before the spin');
       globalThis.runs = (globalThis.runs ?? 0) + 1;
       const until = Date.now() + 400; while (Date.now() < until) {}
       const second = await tools.mark({ r1: Math.random() });
       console.log('after the spin');
       return { t0, r0, first, second, runs: globalThis.runs };`,
      { tools: [mark], conversation: 'spinner' },
    );
    const after = runtime.stats();
    assert.equal(after.inlineRuns! - before.inlineRuns!, 1, 'the run started on the host thread');
    assert.equal(after.movedRuns! - before.movedRuns!, 1, 'and moved');
    const value = valueOf(result) as { t0: number; r0: number; first: number; second: number; runs: number };
    // Each tool ran once: the replay's calls before the move were answered from what the host sent.
    assert.equal(seen.length, 2);
    assert.deepEqual(seen[0], { t0: value.t0, r0: value.r0 }, 'the clock and Math.random read as they did before the move');
    assert.deepEqual([value.first, value.second, value.runs], [1, 2, 1]);
    assert.deepEqual(result.logs.map((l) => l.message), ['before the spin', 'after the spin']);
    // The session went on where the run did: its next run sees what this one left.
    const next = await runtime.execute('return globalThis.runs;', { tools: [], conversation: 'spinner' });
    assert.equal(valueOf(next), 1);
  });

  test("a kept session's run that moves starts again from the session as the run found it", async () => {
    const tools = [{ name: 'noop', invoke: async () => true }];
    // Several runs, each copying the session while the loop is idle into the same buffer.
    for (let i = 1; i <= 3; i++) {
      const r = await runtime.execute(`globalThis.count = (globalThis.count ?? 0) + 1; globalThis.big = 'y'.repeat(${i} << 18); return count;`, { tools, conversation: 'kept' });
      assert.equal(valueOf(r), i);
    }
    const before = runtime.stats();
    const result = await runtime.execute(
      `globalThis.count += 1;
       await tools.noop();
       const until = Date.now() + 300; while (Date.now() < until) {}
       return { count: globalThis.count, big: globalThis.big.length };`,
      { tools, conversation: 'kept' },
    );
    const after = runtime.stats();
    assert.equal(after.inlineRuns! - before.inlineRuns!, 1, 'the run started on the host thread');
    assert.equal(after.movedRuns! - before.movedRuns!, 1, 'and moved');
    // Replayed from the copy taken before it: the increment counted once, the session's string kept.
    assert.deepEqual(valueOf(result), { count: 4, big: 3 << 18 });
    const next = await runtime.execute('return globalThis.count;', { tools, conversation: 'kept' });
    assert.equal(valueOf(next), 4);
  });

  test('after a move, the session comes back to the host thread between runs, not on the way of the next', async () => {
    const tools = [{ name: 'noop', invoke: async () => true }];
    const moved = await runtime.execute(
      'globalThis.n = 1; await tools.noop(); const until = Date.now() + 300; while (Date.now() < until) {} return n;',
      { tools, conversation: 'back' },
    );
    assert.equal(valueOf(moved), 1);
    assert.equal(runtime.stats().movedRuns, 1);
    // Brought back once the host's thread reopens (10× the hold): waited for by its count, bounded.
    const waitedFrom = performance.now();
    while ((runtime.stats().returnedSessions ?? 0) === 0) {
      assert.ok(performance.now() - waitedFrom < 30_000, 'the session never came back to the host thread');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const before = runtime.stats();
    const next = await runtime.execute('globalThis.n += 1; return n;', { tools, conversation: 'back' });
    assert.equal(valueOf(next), 2, 'the session went on');
    assert.equal(runtime.stats().inlineRuns! - before.inlineRuns!, 1, 'its next run ran on the host thread');
    assert.equal(runtime.stats().returnedSessions, 1);
  });

  test("a spinning script holds the host thread for one slice, not for its whole run", async () => {
    const { value: result, stallMs } = await longestStall(() =>
      runtime.execute('const until = Date.now() + 3000; let n = 0; while (Date.now() < until) n++; return n > 0;', { tools: [], conversation: 'spin-2' }),
    );
    assert.equal(valueOf(result), true);
    assert.ok(stallMs < 1500, `the host's loop stalled ${stallMs.toFixed(0)} ms beside a 3 s spin`);
  });

  test("calls to tools that settle at once still let the host's event loop turn", async () => {
    // Such answers chain microtask after microtask; without a turn now and then the host's
    // timers and I/O (and every other conversation) would wait for the whole run.
    const now = { name: 'now', invoke: async () => 1 };
    const script = (calls: number) => `let n = 0; for (let i = 0; i < ${calls}; i++) n += await tools.now(); return n;`;
    // Once, so that no slice of the measured run is a first one (slower while V8 compiles QuickJS).
    // No conversation: a run keeps no session on the host's thread, which would keep the next off it.
    assert.equal(valueOf(await runtime.execute(script(100), { tools: [now] })), 100);
    // On a loaded machine a slice whose thread was descheduled can pass its bound (wall time) and
    // move the run; such a run says nothing of the host's thread, so it is measured again (the
    // one that moved took its worker thread's time, longer than the cooldown it caused).
    for (let attempt = 1; ; attempt++) {
      const before = runtime.stats();
      const started = performance.now();
      const { value: result, stallMs } = await longestStall(() => runtime.execute(script(10_000), { tools: [now] }));
      const runMs = performance.now() - started;
      assert.equal(valueOf(result), 10_000);
      const inline = runtime.stats().inlineRuns! - before.inlineRuns!;
      const moved = runtime.stats().movedRuns! - before.movedRuns!;
      if ((inline !== 1 || moved !== 0) && attempt < 5) continue;
      assert.equal(inline, 1);
      assert.equal(moved, 0, 'the run stayed on the host thread');
      assert.ok(stallMs < runMs / 3, `the host's loop stalled ${stallMs.toFixed(0)} ms of a ${runMs.toFixed(0)} ms run`);
      break;
    }
  });

  test('a run answered more than a replay may repeat moves between slices and finishes', async () => {
    const big = { name: 'big', invoke: async () => 'x'.repeat(1 << 20) };
    const before = runtime.stats();
    const result = await runtime.execute('let n = 0; for (let i = 0; i < 20; i++) n += (await tools.big()).length; return n;', {
      tools: [big],
      conversation: 'answers',
    });
    assert.equal(valueOf(result), 20 << 20);
    assert.equal(runtime.stats().inlineRuns! - before.inlineRuns!, 1, 'the run started on the host thread');
    assert.equal(runtime.stats().movedRuns! - before.movedRuns!, 1);
  });
});

describe('QuickJS inline cooldown', () => {
  test('after one operation held the host thread, the next run goes to a worker thread', async () => {
    const runtime = new JsRuntime({ engine: 'quickjs', quickjsInline: true, limits: { timeoutMs: 60_000 } });
    try {
      // One string operation the interrupt handler cannot stop part-way: it holds the host's
      // thread until it is done (about half a second of the 2-core machine's time, idle).
      const hold = 'return "x".repeat(5e7).length;';
      // Runs without a conversation keep no session on the host's thread, which would keep a
      // newcomer off it whatever the cooldown.
      const first = await longestStall(() => runtime.execute(hold, { tools: [] }));
      assert.equal(valueOf(first.value), 5e7);
      assert.equal(runtime.stats().inlineRuns, 1, 'the first one ran on the host thread (and ended there, holding it)');
      const second = await longestStall(() => runtime.execute(hold, { tools: [] }));
      assert.equal(valueOf(second.value), 5e7);
      assert.ok(
        second.stallMs < first.stallMs / 2,
        `the second conversation stalled the host's loop ${second.stallMs.toFixed(0)} ms, the first ${first.stallMs.toFixed(0)} ms`,
      );
      assert.equal(runtime.stats().inlineRuns, 1, 'the second never ran on the host thread');
    } finally {
      await runtime.close();
    }
  });
});
