/**
 * The watch rule's view of the other side, end to end on a real sandbox thread: while a run
 * waits for an answer that is slow to come, the thread marks itself asleep on the board, and the
 * host's answer records that it found the thread asleep — so that the reply's late arrival is
 * not counted against the host's watch (sandbox/watch-gate.mjs). (Whether a quick answer finds
 * the thread still watching depends on the machine's speed, so no test asserts it.)
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { THREAD_SLEEPING_SLOT } from '../../../src/runtime/js/sandbox/board.mjs';
import { tool, valueOf } from './helpers.ts';
import { onlyThread } from './only-thread.ts';

const runtime = new JsRuntime({ engine: 'quickjs', pool: { maxProcesses: 1, minProcesses: 0 } });
after(() => runtime.close());

test('an answer held until the thread sleeps on the doorbell is recorded as finding it asleep', async () => {
  const quick = tool('quick', async () => 'now');
  valueOf(await runtime.execute('return await tools.quick()', { tools: [quick] }));
  const thread = onlyThread(runtime);

  let sawAsleep = false;
  // Answers only once the thread has gone to sleep on the doorbell waiting for it: the event
  // this test is about. Bounded by the run's own time limit, not by a guess at the machine.
  const held = tool('held', async () => {
    while (Atomics.load(thread.board, THREAD_SLEEPING_SLOT) !== 1) await new Promise((r) => setImmediate(r));
    sawAsleep = true;
    return 'late';
  });
  assert.equal(valueOf(await runtime.execute('return await tools.held()', { tools: [held], timeoutMs: 30_000 })), 'late');
  assert.ok(sawAsleep);
  assert.equal(thread.gate.otherAwake, false, 'the host\'s answer did not record that the thread was asleep');
});
