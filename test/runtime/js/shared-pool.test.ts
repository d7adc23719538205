/**
 * The QuickJS engine's shared pool: many conversations per process, nothing shared between
 * them, warm processes kept between bursts, a bounded queue, and time limits that stop one run
 * without ending its process.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { deferred, errorOf, tool, valueOf } from './helpers.ts';

// Both placements of QuickJS VMs: worker threads of the host and sandbox processes.
for (const quickjsThreads of [true, false]) {
const placement = quickjsThreads ? 'threads' : 'processes';
describe(`shared QuickJS pool (${placement})`, () => {
  const runtime = new JsRuntime({ quickjsThreads, pool: { maxProcesses: 2, runsPerProcess: 8 } });
  after(() => runtime.close());
  const echo = [tool('echo')];

  test('a global or prototype planted in one conversation is invisible in another, and after a reset', async () => {
    valueOf(await runtime.execute(
      'Object.prototype.planted = "A"; Array.prototype.map = () => "hijacked"; globalThis.secret = 42; Symbol.for("x").description; return 1;',
      { tools: echo, conversation: 'A' },
    ));
    const probe = 'return [typeof ({}).planted, [1].map((x) => x * 2)[0], typeof secret];';
    assert.deepEqual(valueOf(await runtime.execute(probe, { tools: echo, conversation: 'B' })), ['undefined', 2, 'undefined']);
    // The next run of A continues its session (its globals persist); a reset starts clean.
    assert.equal(valueOf(await runtime.execute('return secret;', { tools: echo, conversation: 'A' })), 42);
    assert.deepEqual(valueOf(await runtime.execute(probe, { tools: echo, conversation: 'A', reset: true })), ['undefined', 2, 'undefined']);
  });

  test('conversations share processes, and a second burst starts no new process', async () => {
    const burst = () =>
      Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          runtime.execute('let n = 0; for (let i = 0; i < 20; i++) n += (await tools.echo({ i })).i; return n;', {
            tools: echo,
            conversation: `burst-${i}`,
          }),
        ),
      );
    for (const result of await burst()) assert.equal(valueOf(result), 190);
    const first = runtime.stats();
    assert.ok(first.processesLive <= 2, `at most maxProcesses processes, saw ${first.processesLive}`);
    for (const result of await burst()) assert.equal(valueOf(result), 190);
    assert.equal(runtime.stats().processesStarted, first.processesStarted, 'the second burst started a process');
  });

  test('a time limit stops the script without killing its process; other conversations finish', async () => {
    const gate = deferred();
    const slow = runtime.execute('const v = await tools.wait({}); return v;', {
      tools: [tool('wait', () => gate.promise)],
      conversation: 'patient',
    });
    const before = runtime.stats();
    const spin = await runtime.execute('while (true) {}', { tools: echo, conversation: 'spinner', timeoutMs: 300 });
    assert.equal(errorOf(spin).kind, 'timeout');
    const loop = await runtime.execute('while (true) await null;', { tools: echo, conversation: 'spinner', timeoutMs: 300 });
    assert.equal(errorOf(loop).kind, 'timeout');
    gate.resolve('still here');
    assert.equal(valueOf(await slow), 'still here');
    assert.equal(valueOf(await runtime.execute('return 2', { tools: echo, conversation: 'spinner' })), 2);
    assert.equal(runtime.stats().processesKilled, before.processesKilled, 'a process was killed');
  });

  test('a script allocating without end fails as sandbox out of memory; the process serves the next run', async () => {
    const before = runtime.stats();
    const result = await runtime.execute('const a = []; for (;;) a.push("x".repeat(1000) + a.length);', {
      tools: echo,
      limits: { heapMb: 32 },
    });
    assert.deepEqual(errorOf(result), { kind: 'sandbox', message: 'the script ran out of memory (heap limit 32 MiB)' });
    assert.equal(valueOf(await runtime.execute('return 3', { tools: echo })), 3);
    assert.equal(runtime.stats().processesKilled, before.processesKilled);
  });
});

describe(`capacity (${placement})`, () => {
  test('runs beyond capacity wait their turn, and are refused past the queue bounds', async () => {
    const small = new JsRuntime({ quickjsThreads, pool: { maxProcesses: 1, runsPerProcess: 1, maxQueued: 1, queueTimeoutMs: 60_000 } });
    try {
      const gate = deferred();
      const started = deferred();
      const hold = [tool('hold', () => (started.resolve(undefined), gate.promise))];
      const first = small.execute('return await tools.hold({});', { tools: hold, conversation: 'one' });
      await started.promise;
      const queued = small.execute('return "queued ran";', { tools: [], conversation: 'two' });
      const refused = await small.execute('return 1', { tools: [], conversation: 'three' });
      assert.equal(errorOf(refused).kind, 'sandbox');
      assert.match(errorOf(refused).message, /at capacity.*maxQueued/);
      gate.resolve('first done');
      assert.equal(valueOf(await first), 'first done');
      assert.equal(valueOf(await queued), 'queued ran');
    } finally {
      await small.close();
    }
  });

  test('a run waiting longer than queueTimeoutMs is refused with a clear message', async () => {
    const small = new JsRuntime({ quickjsThreads, pool: { maxProcesses: 1, runsPerProcess: 1, queueTimeoutMs: 200 } });
    try {
      const gate = deferred();
      const started = deferred();
      const first = small.execute('return await tools.hold({});', {
        tools: [tool('hold', () => (started.resolve(undefined), gate.promise))],
      });
      await started.promise;
      const late = await small.execute('return 1', { tools: [] });
      assert.equal(errorOf(late).kind, 'sandbox');
      assert.match(errorOf(late).message, /stayed at capacity for 200 ms/);
      gate.resolve(1);
      assert.equal(valueOf(await first), 1);
    } finally {
      await small.close();
    }
  });

  test('idle conversations and processes are reclaimed', async () => {
    const brief = new JsRuntime({ quickjsThreads, pool: { idleVmMs: 50, idleProcessMs: 50, minProcesses: 0 } });
    try {
      assert.equal(valueOf(await brief.execute('return 1', { tools: [], conversation: 'short' })), 1);
      assert.equal(brief.stats().conversations, 1);
      while (brief.stats().conversations > 0 || brief.stats().processesLive > 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(valueOf(await brief.execute('return 2', { tools: [], conversation: 'short' })), 2);
    } finally {
      await brief.close();
    }
  });
});
}

describe('V8 engine processes', () => {
  test('at the cap, runs without a conversation take the warm processes instead of waiting for room', async () => {
    // The shared pool's warm processes fill the cap of 2; a run must take one of them. It used
    // to wait for room for a new process, which none of those runs would ever free: the fourth
    // run sat in the queue until queueTimeoutMs refused it.
    const runtime = new JsRuntime({ engine: 'v8', pool: { maxProcesses: 2, queueTimeoutMs: 60_000 } });
    try {
      for (let i = 0; i < 12; i++) {
        const result = await runtime.execute(`return ${i};`, { tools: [] });
        assert.equal(valueOf(result), i, `run ${i}: ${JSON.stringify(result).slice(0, 200)}`);
      }
      assert.ok(runtime.stats().processesLive <= 2, `live ${runtime.stats().processesLive}`);
    } finally {
      await runtime.close();
    }
  });

  test('a process serves one conversation only, and all count against one cap', async () => {
    const runtime = new JsRuntime({ engine: 'v8', poolSize: 0, pool: { maxProcesses: 2, queueTimeoutMs: 60_000 } });
    try {
      valueOf(await runtime.execute('globalThis.mark = "A"; return 1;', { tools: [], conversation: 'A' }));
      const afterA = runtime.stats().processesStarted;
      // A's next run reuses A's process; B gets one of its own.
      valueOf(await runtime.execute('return 1', { tools: [], conversation: 'A' }));
      assert.equal(runtime.stats().processesStarted, afterA);
      valueOf(await runtime.execute('return 1', { tools: [], conversation: 'B' }));
      assert.equal(runtime.stats().processesStarted, afterA + 1);
      // C needs a third process: the least recently used idle one (A's) is closed for it.
      valueOf(await runtime.execute('return 1', { tools: [], conversation: 'C' }));
      assert.ok(runtime.stats().processesLive <= 2, `live ${runtime.stats().processesLive}`);
      // With both processes busy, D waits for one and then runs.
      const gate = deferred();
      const started = deferred();
      const hold = [tool('hold', () => (started.resolve(undefined), gate.promise))];
      const b = runtime.execute('return await tools.hold({});', { tools: hold, conversation: 'B' });
      await started.promise;
      const started2 = deferred();
      const gate2 = deferred();
      const c = runtime.execute('return await tools.hold({});', {
        tools: [tool('hold', () => (started2.resolve(undefined), gate2.promise))],
        conversation: 'C',
      });
      await started2.promise;
      const d = runtime.execute('return "D ran";', { tools: [], conversation: 'D' });
      assert.ok(runtime.stats().processesLive <= 2);
      gate.resolve('B done');
      assert.equal(valueOf(await b), 'B done');
      assert.equal(valueOf(await d), 'D ran');
      gate2.resolve('C done');
      assert.equal(valueOf(await c), 'C done');
      assert.ok(runtime.stats().processesLive <= 2);
    } finally {
      await runtime.close();
    }
  });
});

/** QuickJS sandbox processes started by this test process (Linux /proc). */
/**
 * The QuickJS sandbox processes this test process started: the node processes themselves, also
 * when the OS layer put a bubblewrap process between (killing bwrap would leave the sandbox to
 * die a moment later, by its parent-death signal, racing the run it should fail).
 */
function quickjsChildren(): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone while we looked.
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parents.get(pid), hops = 0; p !== undefined && hops < 8; p = parents.get(p), hops++) if (p === process.pid) return true;
    return false;
  };
  const pids: number[] = [];
  for (const pid of parents.keys()) {
    try {
      if (!descends(pid) || readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'bwrap') continue;
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('engines/quickjs/main.mjs')) pids.push(pid);
    } catch {
      // Gone while we looked.
    }
  }
  return pids;
}

/** Resolves once `pid` is gone (or a zombie): polled each turn of the event loop, no fixed sleep. */
function gone(pid: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      let state = '';
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
      } catch {
        return resolve();
      }
      if (state === 'Z' || state === 'X') resolve();
      else setImmediate(check);
    };
    check();
  });
}

describe('a crashed QuickJS process', () => {
  test('fails only the runs it hosted; their conversations start fresh elsewhere', { skip: process.platform !== 'linux' && 'needs /proc' }, async () => {
    // The process pool; the thread counterpart is in thread-faults.test.ts.
    const runtime = new JsRuntime({ quickjsThreads: false, pool: { maxProcesses: 2, runsPerProcess: 1, minProcesses: 0 } });
    try {
      const gates = { A: deferred(), B: deferred() };
      const started = { A: deferred(), B: deferred() };
      const run = (name: 'A' | 'B') =>
        runtime.execute('globalThis.state = "kept?"; return await tools.hold({});', {
          tools: [tool('hold', () => (started[name].resolve(undefined), gates[name].promise))],
          conversation: name,
        });
      const a = run('A');
      const b = run('B');
      await Promise.all([started.A.promise, started.B.promise]);
      const pids = quickjsChildren();
      assert.equal(pids.length, 2, 'one process per run (runsPerProcess 1)');
      process.kill(pids[0]!, 'SIGKILL');
      // The answers go out only once the process is dead, so its run cannot finish first.
      await gone(pids[0]!);
      gates.A.resolve('A done');
      gates.B.resolve('B done');
      const results = await Promise.all([a, b]);
      const failed = results.filter((r) => !r.ok);
      assert.equal(failed.length, 1, 'exactly the run in the killed process fails');
      assert.equal(errorOf(failed[0]!).kind, 'sandbox');
      assert.match(errorOf(failed[0]!).message, /exited unexpectedly/);
      assert.equal(valueOf(results.find((r) => r.ok)!), results[0]!.ok ? 'A done' : 'B done');
      // The conversation that lost its process runs again, on a fresh VM.
      const lost = results[0]!.ok ? 'B' : 'A';
      assert.equal(valueOf(await runtime.execute('return typeof globalThis.state;', { tools: [], conversation: lost })), 'undefined');
    } finally {
      await runtime.close();
    }
  });
});
