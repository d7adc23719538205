/**
 * Where a run goes among QuickJS threads (engines/quickjs/thread-placement.ts): the decision
 * alone, over thread states written out.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { placeOnThread, type PlacementInput, type ThreadState } from '../../../src/runtime/js/engines/quickjs/thread-placement.ts';

const idle = (sessions = 0): ThreadState => ({ usable: true, ready: true, load: 0, finishing: 0, sessions });
const running = (): ThreadState => ({ usable: true, ready: true, load: 1, finishing: 0, sessions: 1 });
/** Its run reported its outcome; the idle confirmation is on its way. */
const finishing = (): ThreadState => ({ usable: true, ready: true, load: 1, finishing: 1, sessions: 1 });
const starting = (): ThreadState => ({ usable: true, ready: false, load: 0, finishing: 0, sessions: 0 });

const place = (threads: ThreadState[], rest: Partial<Omit<PlacementInput, 'threads'>> = {}) =>
  placeOnThread({ threads, reserveWanted: false, anotherConversation: false, roomForAnother: true, ...rest });

describe('placing a run on a thread', () => {
  test('the first run starts the first thread', () => {
    assert.deepEqual(place([]), { run: 'new', start: true, reserveWanted: false });
  });

  test('one conversation keeps one thread: no reserve', () => {
    assert.deepEqual(place([idle(1)]), { run: 0, start: false, reserveWanted: false });
  });

  test('a second conversation takes the idle thread and brings the reserve', () => {
    assert.deepEqual(place([idle(1)], { anotherConversation: true }), { run: 0, start: true, reserveWanted: true });
  });

  test('the idle thread keeping the fewest sessions', () => {
    assert.equal(place([idle(3), idle(1), idle(2)], { reserveWanted: true }).run, 1);
  });

  test("a new conversation's run leaves a finishing thread to its conversation and goes to a thread started for it", () => {
    // Waiting for the finishing thread instead let a spinning newcomer take a neighbour's thread.
    assert.deepEqual(place([finishing()], { anotherConversation: true }), { run: 'new', start: true, reserveWanted: true });
    assert.deepEqual(place([finishing(), starting()], { reserveWanted: true }), { run: 1, start: false, reserveWanted: true });
  });

  test('a run arriving while the only thread runs starts another and goes there', () => {
    assert.deepEqual(place([running()]), { run: 'new', start: true, reserveWanted: true });
  });

  test('a thread still starting takes the run when none is idle or finishing and none may be added', () => {
    assert.deepEqual(place([running(), starting()]), { run: 1, start: false, reserveWanted: true });
  });

  test('at the maximum with every thread busy, the run waits', () => {
    assert.deepEqual(place([running(), running()], { roomForAnother: false }), { run: 'wait', start: false, reserveWanted: true });
  });

  test('threads that cannot take runs are passed over', () => {
    const doomed: ThreadState = { ...idle(0), usable: false };
    assert.deepEqual(place([doomed, idle(2)]), { run: 1, start: false, reserveWanted: false });
  });
});
