/**
 * A time limit is wall-clock and always wins (issue 40): a run past its limit ends `timeout` at
 * its limit whatever the engine is doing, even inside one operation QuickJS cannot interrupt
 * part-way, and the host's event loop never runs guest code, so it stays free meanwhile. With
 * the old inline first slice on the host's own thread these ran to their end on the host's
 * loop and returned ok after 3–20 s; on threads they end by the host's timer. The conversation's
 * next run does not wait for the stuck thread's grace either (it waited 2.5–5 s before).
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, before, beforeEach, describe, it } from 'node:test';
import { JsRuntime } from '../../src/runtime/js/index.ts';

/**
 * Shorter than every operation below takes on an idle machine here (JSON.parse 0.5 s, the sort
 * 0.4 s, BigInt 1.6 s; repeat and fill run out of memory first): with 1 s the first two finished
 * in time on an idle machine, and the test tested nothing.
 */
const LIMIT_MS = 200;
/**
 * How late past its limit a run may end: the host's timer fires on a free event loop, so this
 * covers only a loaded machine's scheduling (seen: 40–120 ms at load 20+).
 */
const LATE_MS = 750;
/**
 * The host's event-loop delay while a thread is inside the operation, beyond what the loop waits
 * with nothing running at all (measured first, in the same process: an idle Node process here
 * showed 30–98 ms at load 20 on 2 cores). A guest operation on the host's thread holds it for
 * the whole operation: seconds. (docs/security.md states 50 ms, measured on an idle machine; the
 * test allows 200 so that it holds beside busy processes.)
 */
const LOOP_DELAY_MS = 200;

/** The event loop's largest delay (ms, above the monitor's resolution) while `work` runs. */
async function loopDelayDuring<T>(work: () => Promise<T>): Promise<{ value: T; maxMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    const value = await work();
    return { value, maxMs: Math.max(0, delay.max / 1e6 - 10) };
  } finally {
    delay.disable();
  }
}
/**
 * The conversation's next run after a stuck one: another warm thread is there (a second
 * conversation used it), so it goes there at once (tens of ms at load 25) instead of waiting out
 * the 2 s grace the stuck thread gets.
 */
const NEXT_RUN_MS = 1_000;

const ops: Record<string, string> = {
  'a huge BigInt toString': 'return (10n ** 200000n).toString().length',
  'String.prototype.repeat to 256 MiB': "return 'x'.repeat(2 ** 28).length",
  'JSON.parse of a big string': 'const s = "[" + "1,".repeat(3e6) + "1]"; return JSON.parse(s).length',
  'sort with a comparator of a big array': 'const a = []; for (let i = 0; i < 3e5; i++) a.push((i * 7919) % 100003); a.sort((x, y) => x - y); return a.length',
  'fill of a 1e8 array': 'return new Array(1e8).fill(0).length',
};

describe('a run inside an operation the engine cannot interrupt', () => {
  /** A runtime per case: each op is its runtime's first conversation (the inline placement put that one on the host's thread). */
  let runtime: JsRuntime;
  /** The loop's delay with nothing running, for as long as a run's limit. */
  let idleDelayMs = 0;
  before(async () => {
    idleDelayMs = (await loopDelayDuring(() => new Promise((resolve) => setTimeout(resolve, LIMIT_MS)))).maxMs;
  });
  beforeEach(() => {
    runtime = new JsRuntime({ limits: { timeoutMs: LIMIT_MS } });
  });
  afterEach(() => runtime.close());

  for (const [what, code] of Object.entries(ops)) {
    it(`${what}: ends by its limit, the host's loop stays free, the next run goes at once`, async () => {
      const conversation = what;
      // Two warm threads: another conversation holds one while this one warms the other, so the
      // run below starts at once and its conversation's next run has a warm thread to go to.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const hold = [{ name: 'hold', invoke: async () => (entered(), await gate, 1) }];
      const other = runtime.execute('return await tools.hold()', { tools: hold, conversation: 'other', timeoutMs: 60_000 });
      await inside;
      assert.equal((await runtime.execute('return 1', { tools: [], conversation, timeoutMs: 60_000 })).ok, true);
      release();
      assert.equal((await other).ok, true);
      const started = performance.now();
      const { value: result, maxMs } = await loopDelayDuring(() => runtime.execute(code, { tools: [], conversation }));
      const took = performance.now() - started;
      assert.equal(result.ok, false, `it returned ${JSON.stringify(result.ok && result.value)} after ${took.toFixed(0)} ms`);
      // A time limit, or the heap limit first (a 256 MiB string under 128 MiB): either ends it.
      assert.ok(result.error.kind === 'timeout' || /out of memory/.test(result.error.message), JSON.stringify(result.error));
      assert.ok(took <= LIMIT_MS + LATE_MS, `it ended after ${took.toFixed(0)} ms (limit ${LIMIT_MS} ms)`);
      assert.ok(maxMs <= LOOP_DELAY_MS + idleDelayMs, `the host's event loop was held ${maxMs.toFixed(1)} ms (idle: ${idleDelayMs.toFixed(1)} ms)`);
      const next = performance.now();
      // Its own limit is generous: what is bounded here is the wait for a thread (NEXT_RUN_MS), not
      // the run's 200 ms limit, which a loaded machine (load 7-12) once exceeded on `return 2`.
      const again = await runtime.execute('return 2', { tools: [], conversation, timeoutMs: 60_000 });
      const nextMs = performance.now() - next;
      assert.ok(again.ok && again.value === 2, JSON.stringify(again));
      assert.ok(nextMs <= NEXT_RUN_MS, `the next run took ${nextMs.toFixed(0)} ms`);
    });
  }
});
