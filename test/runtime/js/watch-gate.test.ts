/**
 * The watch rule of a QuickJS thread's bridge (sandbox/watch-gate.mjs): a side that slept, or
 * whose frame found the other side asleep, judges the other side by what it reports it took,
 * not by when the reply reached it; and a side of a process held to one CPU never watches.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WATCH_MS, WatchGate } from '../../../src/runtime/js/sandbox/watch-gate.mjs';
import { BOARD_SLOTS, boardMicros, HOST_TOOK_SLOT, THREAD_SLEEPING_SLOT, THREAD_TOOK_SLOT } from '../../../src/runtime/js/sandbox/board.mjs';

/** One awaited reply: sent at `at`, arriving `latencyMs` later, the other side reporting `tookUs`. */
function reply(gate: WatchGate, at: number, latencyMs: number, tookUs: number): void {
  gate.sent(at);
  gate.received(at + latencyMs, tookUs);
}

test('a side that watched judges by arrival: replies that miss the watch shut the gate', () => {
  const gate = new WatchGate(2);
  for (let i = 0; i < 5; i++) reply(gate, i, WATCH_MS * 4, 10);
  gate.sent(100);
  assert.equal(gate.open, false, 'replies arriving after the watch, however quick the other side says it was');
});

test('once both sides slept, quick reports from the other side open the gate again', () => {
  const gate = new WatchGate(2);
  // Slow replies shut it (the first calls of a process are slow on both sides).
  for (let i = 0; i < 40; i++) reply(gate, i, 1, 1_000);
  gate.sent(50);
  assert.equal(gate.open, false);
  gate.received(51, 1_000);
  // Now every reply arrives late, because this side sleeps and pays its own wake-up: the other
  // side's reports are quick, and they are what counts.
  let calls = 0;
  for (; calls < 1_000; calls++) {
    gate.sent(100 + calls);
    if (gate.open) break;
    gate.received(100 + calls + WATCH_MS * 3, 10);
  }
  assert.ok(calls < 1_000, 'the gate never opened again');
  assert.ok(calls >= 10, `one quick report is not enough to watch again (opened after ${calls})`);
});

test('watches that miss a reply delayed by the other side\'s own wake-up do not shut the gate', () => {
  const gate = new WatchGate(2);
  // The two sides out of phase: this side watches, but each of its frames finds the other side
  // asleep, whose wake-up (about a watch long) makes every reply miss the watch, though the
  // other side took only 10 µs once awake. Judged by arrival, the gate shut after a few calls
  // and this side slept in turn, so that the two never watched at the same time.
  for (let i = 0; i < 1_000; i++) {
    gate.sent(i, false);
    assert.equal(gate.open, true, `shut after ${i} replies delayed by the other side's wake-up`);
    gate.received(i + WATCH_MS * 1.5, 10);
  }
  // The same replies from a side that was awake are slow replies: they shut it.
  for (let i = 0; i < 5; i++) reply(gate, 2_000 + i, WATCH_MS * 1.5, 10);
  gate.sent(3_000, true);
  assert.equal(gate.open, false);
});

test('reports of slow replies shut the gate of a side whose frames find the other asleep', () => {
  const gate = new WatchGate(2);
  let calls = 0;
  for (; calls < 1_000; calls++) {
    gate.sent(calls, false);
    if (!gate.open) break;
    gate.received(calls + WATCH_MS * 3, WATCH_MS * 1000);
  }
  assert.ok(calls < 1_000, 'slow reports never shut it');
});

test('reports of slow replies keep a sleeping side asleep', () => {
  const gate = new WatchGate(2);
  for (let i = 0; i < 40; i++) reply(gate, i, 1, 1_000);
  for (let i = 0; i < 1_000; i++) {
    gate.sent(100 + i);
    assert.equal(gate.open, false);
    gate.received(100 + i + 1, WATCH_MS * 1000);
  }
});

test('a gate of a process held to one CPU never opens, however quick the replies', () => {
  const one = new WatchGate(1);
  const two = new WatchGate(2);
  for (let i = 0; i < 1_000; i++) {
    for (const gate of [one, two]) gate.sent(i, i % 2 === 0);
    assert.equal(one.open, false, `watched on one CPU after ${i} quick replies`);
    assert.equal(two.open, true, 'a gate with a second CPU shut on quick replies');
    for (const gate of [one, two]) gate.received(i + WATCH_MS / 4, 10);
  }
  assert.deepEqual([one.watches, two.watches], [0, 1_000]);
});

test('the board holds both reports after the doorbell and the cancel slots, in whole µs, the thread\'s sleep flag last', () => {
  assert.deepEqual([HOST_TOOK_SLOT, THREAD_TOOK_SLOT, THREAD_SLEEPING_SLOT, BOARD_SLOTS], [17, 18, 24, 25]);
  assert.equal(boardMicros(0.0123), 12);
  assert.equal(boardMicros(-1), 0);
  assert.equal(boardMicros(1e12), 0x7fffffff);
});
