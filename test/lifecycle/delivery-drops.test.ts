/**
 * What an observer never receives is counted: the openings still waiting when its queue stops
 * (its connection dropped, or the host closed) are dropped calls, the messages lost with them
 * are dropped messages, and a batch whose write failed counts the same; a queue that takes
 * over from a stopped one (a reconnect) starts from its counts, so they never go back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeliveryQueue } from '../../src/lifecycle/delivery-queue.ts';

const opening = (n: number) => `{"opening":${n}}\n`;
const terminal = (n: number) => `{"terminal":${n}}\n`;

test('openings and messages still waiting when the queue stops are counted as dropped', async () => {
  const written: string[] = [];
  // The first write never completes: everything after it waits in the queue.
  const queue = new DeliveryQueue((data) => (written.push(data), new Promise<void>(() => {})), () => {}, { maxCallsPerSecond: Infinity, maxBatchChars: 1 });
  for (let i = 0; i < 5; i++) {
    assert.ok(queue.offerOpening(opening(i)));
    queue.push(terminal(i));
  }
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(written.length, 1, 'one message is in flight');
  queue.stop();
  assert.equal(queue.stats.droppedCalls, 4, 'the four openings that never left');
  assert.equal(queue.stats.droppedMessages, 9, 'every message that never left');
  queue.stop();
  assert.equal(queue.stats.droppedCalls, 4, 'a second stop counts nothing again');
});

test('a batch whose write fails is counted as dropped', async () => {
  const queue = new DeliveryQueue(() => Promise.reject(new Error('pipe closed')), () => {}, { maxCallsPerSecond: Infinity });
  queue.offerOpening(opening(1));
  queue.push(terminal(1));
  queue.offerOpening(opening(2));
  await queue.idle();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(queue.stats.droppedCalls, 2);
  assert.equal(queue.stats.droppedMessages, 3);
  assert.equal(queue.stats.sent, 0);
});

test('a queue that takes over from a stopped one keeps its counts', async () => {
  const old = new DeliveryQueue(() => new Promise<void>(() => {}), () => {}, { maxQueued: 1, maxCallsPerSecond: Infinity });
  old.offerOpening(opening(1));
  assert.equal(old.offerOpening(opening(2)), false, 'full: dropped');
  old.stop();
  const next = new DeliveryQueue(async () => {}, () => {}, { maxCallsPerSecond: Infinity, carried: old.stats });
  assert.equal(next.stats.droppedCalls, 2, 'one refused, one lost with the old queue');
  assert.equal(next.stats.queued, 0);
  next.offerOpening(opening(3));
  await next.idle();
  assert.equal(next.stats.sent, 1);
});
