/**
 * Misbehaving QuickJS sandbox *threads* (the default placement of QuickJS VMs): the thread
 * counterparts of the rogue-process tests (results.test.ts "sandbox failures", pool-lost.test.ts,
 * shared-pool.test.ts "a crashed QuickJS process"). Each entry in fixtures/thread-*.mjs speaks
 * the port protocol and breaks it one way: a message that is no frame, a malformed call, a call
 * to a tool the run never had, an outcome for another run, an exit or an uncaught throw in the
 * middle of a run, no `ready`, a flood that never reads a cancel, a thread that never confirms
 * a cancel, a thread that dies while its neighbours run. Every one must fail its run as
 * `sandbox` (or end it by its limit) at once, and cost nothing to the runs on other threads.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { deferred, errorOf, tool, valueOf } from './helpers.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.mjs`, import.meta.url));
/** Far longer than failing takes: a run that reaches it hung (its error kind is then `timeout`). */
const HANG_MS = 20_000;

describe('a rogue sandbox thread fails its run as sandbox, without hanging', () => {
  const rogue = async (name: string) => {
    const runtime = new JsRuntime({ sandboxEntry: fixture(name), pool: { minProcesses: 0 } });
    try {
      return await runtime.execute('return await tools.echo({})', { tools: [tool('echo')], timeoutMs: HANG_MS });
    } finally {
      await runtime.close();
    }
  };
  const expected: Record<string, RegExp> = {
    'thread-garbage': /^broken sandbox bridge: a message that is not a frame$/,
    'thread-malformed': /^broken sandbox bridge: out has a malformed call/,
    'thread-unknown-tool': /^broken sandbox bridge: call to unknown tool secret/,
    'thread-wrong-run': /^broken sandbox bridge: (unexpected done message|done for run \d+, which is not running in this process)/,
    'thread-exit': /^the sandbox thread exited unexpectedly \(exit code 3\)$/,
    'thread-throws': /^the sandbox thread failed: the rogue thread threw$/,
    'thread-never-ready': /^the sandbox could not start: the sandbox thread exited unexpectedly \(exit code 0\)$/,
    // What the removed inline placement's host thread used to say (a run leaving it, a slice that
    // held it): no place says it any more, so a thread that does is broken.
    'thread-overran': /^broken sandbox bridge: overran carries an attachment$/,
    'thread-held': /^broken sandbox bridge: unknown message type "held"$/,
  };
  for (const [name, message] of Object.entries(expected)) {
    test(name, async () => {
      const error = errorOf(await rogue(name));
      assert.equal(error.kind, 'sandbox', error.message);
      assert.match(error.message, message);
    });
  }
});

test('a run placed on a thread lost in the turn it became ready fails as sandbox, without waiting out its limit', async () => {
  const runtime = new JsRuntime({ sandboxEntry: fixture('thread-ready-then-garbage'), pool: { maxProcesses: 1, minProcesses: 0 } });
  try {
    const error = errorOf(await runtime.execute('return await tools.echo({})', { tools: [tool('echo')], timeoutMs: HANG_MS }));
    assert.equal(error.kind, 'sandbox', `the run hung until its time limit: ${error.message}`);
    assert.match(error.message, /^broken sandbox bridge: a message that is not a frame$/);
  } finally {
    await runtime.close();
  }
});

test('a queued run handed a thread whose next message breaks it fails as sandbox, without waiting out its limit', async () => {
  const runtime = new JsRuntime({ sandboxEntry: fixture('thread-idle-then-garbage'), pool: { maxProcesses: 1, minProcesses: 0 } });
  const tools = [tool('echo')];
  try {
    // One run per thread: the first takes the only thread; the second waits for it in the queue.
    const first = runtime.execute('return 1', { tools, timeoutMs: HANG_MS });
    const second = runtime.execute('return 2', { tools, timeoutMs: HANG_MS });
    assert.equal(valueOf(await first), 1);
    const error = errorOf(await second);
    assert.equal(error.kind, 'sandbox', `the queued run hung until its time limit: ${error.message}`);
    assert.match(error.message, /^broken sandbox bridge: a message that is not a frame$/);
  } finally {
    await runtime.close();
  }
});

test('a thread flooding the host with log frames fails its run at maxLogEntries and is ended; the host keeps serving', async () => {
  const runtime = new JsRuntime({ sandboxEntry: fixture('thread-flood'), pool: { maxProcesses: 1, minProcesses: 0 } });
  try {
    const result = await runtime.execute('return 1', { tools: [], timeoutMs: HANG_MS });
    assert.deepEqual(errorOf(result), {
      kind: 'script', name: 'RangeError', message: 'the script wrote more than 10000 log entries (limit maxLogEntries)',
    });
    assert.equal(result.logs.length, 10_000);
    // It never reads the cancel: terminated once the grace is over, replaced by a new thread,
    // which floods the next run the same way (the host is still there to say so).
    const next = errorOf(await runtime.execute('return 2', { tools: [], timeoutMs: HANG_MS }));
    assert.match(next.message, /limit maxLogEntries/);
    assert.ok(runtime.stats().processesKilled >= 1, 'the flooding thread was terminated');
  } finally {
    await runtime.close();
  }
});

describe('a misbehaving thread beside well-behaved ones (the real engine on every thread)', () => {
  test('a thread that never confirms a cancel is terminated alone; the neighbour run and its session live on', async () => {
    const runtime = new JsRuntime({ sandboxEntry: fixture('thread-misbehaving'), pool: { maxProcesses: 2, minProcesses: 0 } });
    try {
      assert.equal(valueOf(await runtime.execute('globalThis.kept = "B\'s"; return 1', { tools: [], conversation: 'B' })), 1);
      const gate = deferred();
      const started = deferred();
      const b = runtime.execute('return [kept, await tools.hold({})]', {
        tools: [tool('hold', () => (started.resolve(undefined), gate.promise))],
        conversation: 'B',
      });
      await started.promise;
      // A's thread spins outside its VM: the time limit ends the run, the cancel is never
      // confirmed, and after the grace the thread is terminated.
      const a = await runtime.execute('/*deaf*/ return 1', { tools: [], conversation: 'A', timeoutMs: 300 });
      assert.equal(errorOf(a).kind, 'timeout');
      while (runtime.stats().processesKilled === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      gate.resolve('answered');
      const result = await b;
      assert.deepEqual(valueOf(result), ["B's", 'answered']);
      assert.equal(result.session?.fresh, false, "B's session survived");
      assert.equal(runtime.stats().processesKilled, 1, 'only the deaf thread was ended');
      // A's conversation runs again, fresh, on a thread of its own.
      const again = await runtime.execute('return typeof kept', { tools: [], conversation: 'A' });
      assert.equal(valueOf(again), 'undefined');
      assert.equal(again.session?.fresh, true);
    } finally {
      await runtime.close();
    }
  });

  test('a thread that dies in the middle of a run fails only that run; its conversation starts fresh on another thread', async () => {
    const runtime = new JsRuntime({ sandboxEntry: fixture('thread-misbehaving'), pool: { maxProcesses: 2, minProcesses: 0 } });
    try {
      const gates = { A: deferred(), B: deferred() };
      const started = { A: deferred(), B: deferred() };
      const run = (name: 'A' | 'B', marker: string) =>
        runtime.execute(`${marker} globalThis.state = "kept?"; return await tools.hold({});`, {
          tools: [tool('hold', () => (started[name].resolve(undefined), gates[name].promise))],
          conversation: name,
        });
      const a = run('A', '/*exit-on-answer*/');
      const b = run('B', '');
      await Promise.all([started.A.promise, started.B.promise]);
      // A's answer ends A's thread as it arrives; B's arrives at its own thread.
      gates.A.resolve('A done');
      const failed = await a;
      gates.B.resolve('B done');
      assert.equal(valueOf(await b), 'B done');
      assert.equal(errorOf(failed).kind, 'sandbox');
      assert.match(errorOf(failed).message, /^the sandbox thread exited unexpectedly \(exit code 9\)$/);
      const again = await runtime.execute('return typeof globalThis.state;', { tools: [], conversation: 'A' });
      assert.equal(valueOf(again), 'undefined');
      assert.equal(again.session?.fresh, true);
      const kept = await runtime.execute('return globalThis.state;', { tools: [], conversation: 'B' });
      assert.equal(valueOf(kept), 'kept?', "B's session is intact");
    } finally {
      await runtime.close();
    }
  });
});
