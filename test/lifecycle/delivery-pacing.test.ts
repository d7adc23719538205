/**
 * How often an observer's queue writes (issue 22): a dense stream of lifecycle messages is
 * written less and less often, up to the longest spacing, so a flood of calls costs each
 * observer process a wake-up per 50 ms instead of per 5 ms; a sparse stream goes back to the
 * shortest spacing, so a call now and then is delivered within 5 ms.
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
