/**
 * The host enforces the run's limits itself, whatever engine runs the script: a sandbox process
 * that enforces none of them (fixtures/unbounded-child.mjs) still cannot flood the host with log
 * entries, park unbounded bytes in flight, or hand it a value too deep for its JSON.stringify.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { JsRuntime } from '../../src/runtime/js/index.ts';
import { deferred, errorOf, tool, valueOf } from '../runtime/js/helpers.ts';

const runtime = new JsRuntime({ engine: 'v8', poolSize: 0, sandboxEntry: fileURLToPath(new URL('./fixtures/unbounded-child.mjs', import.meta.url)) });
after(() => runtime.close());
const run = (scenario: string, tools = [tool('spy')]) => runtime.execute(scenario, { tools, timeoutMs: 60_000 });

test('log entries past maxLogEntries fail the run, even when the process sends them', async () => {
  const result = await run('logs');
  assert.deepEqual(errorOf(result), {
    kind: 'script', name: 'RangeError', message: 'the script wrote more than 10000 log entries (limit maxLogEntries)',
  });
  assert.equal(result.logs.length, 10_000);
});

test('a return value past maxDepth or maxReturnBytes fails the run as a script error', async () => {
  assert.deepEqual(errorOf(await run('deep-return')), {
    kind: 'script', name: 'RangeError', message: 'the return value is nested deeper than 256 levels (limit maxDepth)',
  });
  const big = errorOf(await run('big-return'));
  assert.equal(big.kind, 'script');
  assert.match(big.message, /over the 8388608-byte limit \(maxReturnBytes\)/);
});

test('arguments past maxDepth are refused with a RangeError answer and never reach the tool', async () => {
  let called = false;
  const answer = valueOf(await run('deep-args', [tool('spy', async () => { called = true; return null; })]));
  assert.deepEqual(answer, {
    ok: false, name: 'RangeError', payload: 'the arguments of tools.spy are nested deeper than 256 levels (limit maxDepth)',
  });
  assert.equal(called, false);
});

test('arguments in flight past maxInFlightBytes are refused; the rest run', async () => {
  const release = deferred<void>();
  let received = 0;
  const value = valueOf(await run('inflight', [
    tool('hold', async () => { received++; await release.promise; return 'held'; }),
    tool('release', async () => { release.resolve(); return null; }),
  ])) as { held: number; refused: number; first: string };
  assert.equal(value.held, 64); // 64 × (1 MiB − 6 bytes) fit under 64 MiB
  assert.equal(value.refused, 36);
  assert.equal(received, 64);
  assert.match(value.first, /^RangeError: tools\.hold: its 1048570 bytes of arguments would put more than the 67108864-byte limit \(maxInFlightBytes\) in flight/);
});
