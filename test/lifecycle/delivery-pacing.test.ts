/**
 * How often an observer's queue writes (issue 22): a dense stream of lifecycle messages is
 * written less and less often, up to the longest spacing, so a flood of calls costs each
 * observer process a wake-up per 50 ms instead of per 5 ms; a sparse stream goes back to the
 * shortest spacing, so a call now and then is delivered within 5 ms. A burst the rate budget
 * admitted is written at no more than the budget's rate, so observers' work on it does not
 * land all at once on the cores the script runs on; a flush writes it at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MAX_WRITE_INTERVAL_MS, DEFAULT_MIN_WRITE_INTERVAL_MS, DeliveryQueue, nextWriteInterval } from '../../src/lifecycle/delivery-queue.ts';

test('the spacing doubles after a dense batch, halves after a sparse one, and stays within its bounds', () => {
  assert.equal(nextWriteInterval(5, 16, 5, 50), 10);
  assert.equal(nextWriteInterval(40, 200, 5, 50), 50);
  assert.equal(nextWriteInterval(50, 200, 5, 50), 50);
  assert.equal(nextWriteInterval(20, 8, 5, 50), 20, 'a middling batch keeps the spacing');
  assert.equal(nextWriteInterval(20, 2, 5, 50), 10);
  assert.equal(nextWriteInterval(6, 1, 5, 50), 5);
  assert.equal(nextWriteInterval(0, 100, 0, 50), 1, 'a zero spacing can still grow');
  assert.equal(nextWriteInterval(5, 100, 5, 2), 5, 'a maximum below the minimum is the minimum');
});

test('a flood of messages is written at the longest spacing, and a trickle at the shortest again', async () => {
  const writes: string[] = [];
  const queue = new DeliveryQueue(
    async (data) => {
      writes.push(data);
    },
    (error) => assert.fail(error),
    { maxCallsPerSecond: Infinity },
  );
  assert.equal(queue.stats.writeIntervalMs, DEFAULT_MIN_WRITE_INTERVAL_MS);
  let message = 0;
  // Dense: every write carries 32 messages (each burst is queued before its write goes out).
  for (let burst = 0; burst < 6; burst++) {
    for (let i = 0; i < 32; i++) assert.ok(queue.offerOpening(`{"n":${message++}}\n`));
    await queue.idle();
  }
  assert.equal(queue.stats.writeIntervalMs, DEFAULT_MAX_WRITE_INTERVAL_MS);
  assert.equal(writes.length, 6, 'one write per burst');
  // Sparse: one message per write.
  for (let i = 0; i < 6; i++) {
    assert.ok(queue.offerOpening(`{"n":${message++}}\n`));
    await queue.idle();
  }
  assert.equal(queue.stats.writeIntervalMs, DEFAULT_MIN_WRITE_INTERVAL_MS);
  assert.equal(queue.stats.sent, message, 'nothing was lost on the way');
  assert.equal(writes.join('').split('\n').filter(Boolean).length, message);
});

/** Writes with the time each went out and the openings it carried (every test opening has "o"). */
function timedWrites() {
  const writes: { at: number; openings: number; data: string }[] = [];
  return {
    writes,
    write: async (data: string) => {
      writes.push({ at: performance.now(), openings: data.split('\n').filter((l) => l.includes('"o"')).length, data });
    },
  };
}

test('a burst is written at no more than the rate budget, openings counted, terminals in order behind them', async () => {
  const { writes, write } = timedWrites();
  // 200 calls/s with the longest spacing 50 ms: pacing holds at most two spacings' worth, 20 openings.
  const queue = new DeliveryQueue(write, (error) => assert.fail(error), { maxCallsPerSecond: 200, maxWriteIntervalMs: 50 });
  const calls = 60;
  for (let n = 0; n < calls; n++) {
    assert.ok(queue.offerOpening(`{"o":${n}}\n`), 'the burst is within the budget');
    queue.push(`{"t":${n}}\n`);
  }
  await queue.idle();
  const lines = writes.flatMap((w) => w.data.split('\n').filter(Boolean));
  assert.deepEqual(lines, Array.from({ length: calls }, (_, n) => [`{"o":${n}}`, `{"t":${n}}`]).flat(), 'every message, in order');
  assert.equal(writes[0]!.openings, 20, 'the first write carries two spacings of the rate');
  // However late the machine ran the timers, by each write no more went out than the rate earned.
  let sent = 0;
  for (const w of writes) {
    sent += w.openings;
    assert.ok(sent <= 20 + (200 * (w.at - writes[0]!.at)) / 1000 + 1, `${sent} openings written ${(w.at - writes[0]!.at).toFixed(1)} ms after the first`);
  }
  assert.ok(writes.length >= 4, `${writes.length} writes`);
});

test('a flush writes what waits at once, whatever the pacing', async () => {
  const { writes, write } = timedWrites();
  const queue = new DeliveryQueue(write, (error) => assert.fail(error), { maxCallsPerSecond: 200, maxWriteIntervalMs: 50 });
  for (let n = 0; n < 40; n++) queue.offerOpening(`{"o":${n}}\n`);
  // The first write goes out on the next turn of the loop; the rest waits for credit.
  while (writes.length === 0) await new Promise((resolve) => setImmediate(resolve));
  await queue.flushNow();
  assert.equal(writes.reduce((sum, w) => sum + w.openings, 0), 40);
  assert.equal(writes.length, 2, 'the paced write, then everything else in one');
});

test('a lifted budget paces nothing: one write carries the whole burst', async () => {
  const { writes, write } = timedWrites();
  const queue = new DeliveryQueue(write, (error) => assert.fail(error), { maxCallsPerSecond: Infinity, maxWriteIntervalMs: 50 });
  for (let n = 0; n < 400; n++) queue.offerOpening(`{"o":${n}}\n`);
  await queue.idle();
  assert.equal(writes.length, 1);
  assert.equal(writes[0]!.openings, 400);
});
