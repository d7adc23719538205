/**
 * A durable run's clock and random reads (docs/durable.md), on both engines: with `durable` the
 * host's seed drives Math.random (the same sequence on QuickJS and V8, so a journal does not
 * depend on the engine), every clock read is reported before the next tool call, and a replay's
 * recorded reads are served first, in order, then the live clock. Without it nothing is reported.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import type { DurableReads } from '../../../src/runtime/durable-reads.ts';
import { tool, valueOf } from './helpers.ts';
import { ENGINES } from './engines.ts';

const SEED = [0x12345678, -0x2468ace, 0x0badf00d, 7];

/** A recorder as the host's journal keeps one: `reported` gets each batch the guest sends. */
function recorder(clock: number[] = []): DurableReads & { reported: unknown[] } {
  const reported: unknown[] = [];
  return { seed: SEED, clock, reported, onClock: (reads) => void reported.push(reads) };
}

const SCRIPT = `
const t0 = Date.now();
const d = new Date().getTime();
const s = Date();
const r = [Math.random(), Math.random()];
await tools.echo({ t0 });
const t1 = Date.now();
await tools.echo({ t1 });
return { t0, d, s, r, t1, live: Date.now() };
`;

const randoms: Record<string, unknown> = {};

for (const engine of ENGINES) {
  describe(`${engine} engine`, () => {
    const runtime = new JsRuntime({ engine });
    after(() => runtime.close());

    test('recording: reads are reported in order, batched before the call that follows them', async () => {
      const durable = recorder();
      const before = Date.now();
      const value = valueOf(await runtime.execute(SCRIPT, { tools: [tool('echo')], durable })) as any;
      assert.ok(value.t0 >= before && value.t1 >= value.t0, JSON.stringify(value));
      const s = Date.parse(value.s);
      // Three reads before the first call (Date.now, new Date, Date()), one before the second.
      assert.equal(durable.reported.length, 2, JSON.stringify(durable.reported));
      assert.deepEqual(durable.reported[0], [value.t0, value.d, (durable.reported[0] as number[])[2]]);
      assert.equal(Math.floor((durable.reported[0] as number[])[2]! / 1000) * 1000, s);
      assert.deepEqual(durable.reported[1], [value.t1]);
      randoms[engine] = value.r;
    });

    test('a replay serves the recorded reads in order, then the live clock', async () => {
      const durable = recorder([1_000, 2_000, 3_000, 4_000]);
      const before = Date.now();
      const value = valueOf(await runtime.execute(SCRIPT, { tools: [tool('echo')], durable })) as any;
      assert.equal(value.t0, 1_000);
      assert.equal(value.d, 2_000);
      assert.equal(Date.parse(value.s), 3_000);
      assert.equal(value.t1, 4_000);
      assert.ok(value.live >= before, 'past the journal the clock is live');
      assert.deepEqual(durable.reported, [[1_000, 2_000, 3_000], [4_000]], 'a replay reports the reads it served');
      // The same seed draws the same numbers.
      assert.deepEqual(value.r, randoms[engine]);
    });

    test('Date keeps its behaviour under the shim: arguments, subclasses, constructor, statics', async () => {
      const value = valueOf(await runtime.execute(`
        class Day extends Date { iso() { return this.toISOString(); } }
        return [new Date(0).getTime(), new Date(2020, 0, 2).getFullYear(), new Day(86400000).iso(), new Date() instanceof Date,
          Date.prototype.constructor === Date, Date.length, Date.name, Date.UTC(1970, 0, 1), Date.parse('1970-01-01T00:00:01Z'), typeof Date.now()];
      `, { tools: [], durable: recorder() }));
      assert.deepEqual(value, [0, 2020, '1970-01-02T00:00:00.000Z', true, true, 7, 'Date', 0, 1000, 'number']);
    });

    test('without a store nothing is recorded, and runs draw different numbers', async () => {
      const a = valueOf(await runtime.execute('return [Math.random(), Date.now()];', { tools: [] })) as number[];
      const b = valueOf(await runtime.execute('return [Math.random(), Date.now()];', { tools: [] })) as number[];
      assert.notEqual(a[0], b[0]);
      assert.ok(a[0]! >= 0 && a[0]! < 1 && b[1]! >= a[1]!);
    });
  });
}

test('the same seed draws the same numbers on both engines (a journal does not depend on the engine)', () => {
  assert.equal(Object.keys(randoms).length, ENGINES.length);
  assert.deepEqual(randoms.v8, randoms.quickjs);
});

for (const engine of ENGINES) {
  test(`${engine}: a recording run keeps at most 100,000 clock reads (the journal's bound), then says it read more`, async () => {
    const runtime = new JsRuntime({ engine });
    try {
      const durable = recorder();
      const value = valueOf(await runtime.execute('for (let i = 0; i < 100005; i++) Date.now(); await tools.echo(1); Date.now(); await tools.echo(2); return 1;', { tools: [tool('echo')], durable }));
      assert.equal(value, 1);
      const batches = durable.reported;
      assert.equal(batches.length, 2, 'the kept reads, then "over" once; nothing after it');
      assert.equal((batches[0] as number[]).length, 100_000);
      assert.equal(batches[1], 'over');
    } finally {
      await runtime.close();
    }
  });
}
