/**
 * A conversation cannot hurt another's run or session (issue 19, item 1): with QuickJS VMs on
 * threads of their own (`quickjsThreads`), B's `return x` while A spins, allocates to its heap
 * limit or makes the sandbox rank a megabyte tool name takes about B's usual time, and B's
 * kept global survives; a run waiting for capacity does not spend its time limit waiting.
 * When written, checked against the shared-process pool of the time (TOOLCELL_NEIGHBOUR_PROCESSES=1):
 * all three failed there (B took 2,006 ms beside the spin and 193 ms beside the allocation; the
 * megabyte name kept the process from confirming a cancel and its SIGKILL ended B's run). Today's
 * process pool passes them too.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JsRuntime } from '../../src/runtime/js/index.ts';

const THREADS = process.env.TOOLCELL_NEIGHBOUR_PROCESSES !== '1';
const tools = [{ name: 'echo', invoke: async (args: unknown) => args }];

async function timed(runtime: JsRuntime, code: string, conversation: string): Promise<{ ms: number; value: unknown; fresh: boolean | undefined }> {
  const started = performance.now();
  const result = await runtime.execute(code, { tools, conversation });
  assert.ok(result.ok, JSON.stringify(result));
  return { ms: performance.now() - started, value: result.value, fresh: result.session?.fresh };
}

describe('a hostile neighbour', () => {
  let runtime: JsRuntime;
  let baseline = 0;

  before(async () => {
    runtime = new JsRuntime({ quickjsThreads: THREADS, pool: { maxProcesses: 4 } });
    await timed(runtime, 'x = 41; return 1', 'B');
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) samples.push((await timed(runtime, 'return x + 1', 'B')).ms);
    baseline = samples.sort((a, b) => a - b)[2]!;
  });
  after(() => runtime.close());

  const attacks: Record<string, string> = {
    spins: 'for (;;);',
    'allocates to its heap limit': 'const a = []; for (;;) a.push(new Array(1e4).fill("x".repeat(64)));',
    'sends a megabyte tool name': 'const name = "q".repeat(1 << 20); for (;;) { try { await tools[name](); } catch {} }',
  };
  for (const [what, code] of Object.entries(attacks)) {
    it(`B's run and session are unharmed while A ${what}`, async () => {
      const a = runtime.execute(code, { tools, conversation: 'A', timeoutMs: 2_000, limits: { heapMb: 32 } });
      // A is running once its first run-time is spent; B is measured while A still runs.
      await new Promise((resolve) => setImmediate(resolve));
      let aOver = false;
      void a.then(() => (aOver = true));
      const b = await timed(runtime, 'return x + 1', 'B');
      assert.equal(aOver, false, 'A ended before B was measured');
      assert.equal(b.value, 42);
      assert.equal(b.fresh, false, "B's session was lost");
      // The quickest of up to three of B's runs while A still runs: a run held behind A is slow
      // every time (193-2,006 ms on the shared process), while one run preempted on a loaded
      // machine is not the defect (67 ms once, at load 7, beside the allocating A).
      let quickest = b.ms;
      for (let i = 0; i < 2 && !aOver && quickest > 2 * baseline + 50; i++) quickest = Math.min(quickest, (await timed(runtime, 'return x + 1', 'B')).ms);
      assert.ok(quickest <= 2 * baseline + 50, `B took ${quickest.toFixed(1)} ms beside A at its quickest (baseline ${baseline.toFixed(1)} ms)`);
      const end = await a;
      assert.equal(end.ok, false);
      const again = await timed(runtime, 'return x + 1', 'B');
      assert.equal(again.fresh, false);
    });
  }
});

describe('waiting for capacity', () => {
  it('does not spend the time limit of the run that waits', async () => {
    const runtime = new JsRuntime({ quickjsThreads: THREADS, pool: { maxProcesses: 1, runsPerProcess: 1 } });
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const slow = [{ name: 'wait', invoke: async () => { entered(); await gate; return 1; } }];
      const a = runtime.execute('return await tools.wait()', { tools: slow, conversation: 'A' });
      await inside;
      const b = runtime.execute('return 2', { tools, conversation: 'B', timeoutMs: 300 });
      // B waits for A's slot well past its own limit before it starts.
      const waited = performance.now();
      while (performance.now() - waited < 600) await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      assert.deepEqual((await a).ok, true);
      const result = await b;
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.value, 2);
    } finally {
      await runtime.close();
    }
  });
});

describe('a kept session whose thread another conversation takes', { skip: !THREADS && 'threads only' }, () => {
  it('is parked and goes on at once on another free thread, not behind the neighbour', async () => {
    // Two threads. X keeps a session on the first; W holds the second; Y then needs a thread and
    // takes X's (there is no other): X's session is parked in the host before Y spins there. Once
    // W lets go, X's next run must continue its session on W's thread while Y still spins. Before
    // parking, X waited behind Y until the queue bound refused it.
    const runtime = new JsRuntime({ pool: { maxProcesses: 2, minProcesses: 0, queueTimeoutMs: 5_000 } });
    try {
      assert.equal((await timed(runtime, 'v = "X kept"; return 1', 'X')).value, 1);
      let releaseW!: () => void;
      const gate = new Promise<void>((resolve) => (releaseW = resolve));
      let wIn!: () => void;
      const wInside = new Promise<void>((resolve) => (wIn = resolve));
      const hold = [{ name: 'hold', invoke: async () => { wIn(); await gate; return 'W done'; } }];
      const w = runtime.execute('return await tools.hold()', { tools: hold, conversation: 'W' });
      await wInside;
      const y = runtime.execute('for (;;);', { tools, conversation: 'Y', timeoutMs: 20_000 });
      let yOver = false;
      void y.then(() => (yOver = true));
      await new Promise((resolve) => setImmediate(resolve));
      releaseW();
      assert.equal((await w).ok, true);
      const x = await runtime.execute('return v', { tools, conversation: 'X' });
      assert.ok(x.ok, JSON.stringify(x));
      assert.equal(x.value, 'X kept');
      assert.equal(x.session?.fresh, false, "X's session was lost");
      assert.equal(yOver, false, 'Y ended before X ran: X may have waited behind it');
      // Back on a thread, X's session stays there for its next run.
      assert.equal((await timed(runtime, 'return v', 'X')).fresh, false);
    } finally {
      await runtime.close();
    }
  });
});
