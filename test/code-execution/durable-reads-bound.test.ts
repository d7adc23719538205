/**
 * The recorder's side of the clock-read bound (durable-runs.ts): a JS guest past the bound says
 * "over" instead of sending more reads, and the run is then not made durable; a report that is
 * not a list of numbers is refused the same way.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunRecorder } from '../../src/code-execution/durable-runs.ts';

test('a guest that read the clock past the bound ("over") makes the run not durable, naming why', async () => {
  const recorder = new RunRecorder('call-1', 'javascript', 'sha256:x');
  const reads = recorder.reads();
  reads.onClock([1, 2, 3]);
  assert.deepEqual(await recorder.snapshot(0), { journal: [], seed: recorder.seed, clock: [1, 2, 3] });
  reads.onClock('over');
  assert.deepEqual(await recorder.snapshot(0), { refused: 'the run read the clock more than 100000 times' });
});

test('a report that is not a list of finite numbers makes the run not durable', async () => {
  const recorder = new RunRecorder('call-2', 'javascript', 'sha256:x');
  recorder.reads().onClock([1, Number.NaN]);
  assert.deepEqual(await recorder.snapshot(0), { refused: 'the run reported clock reads that are not numbers' });
});
