/**
 * Resource bounds on the V8 engine (issue 7): each attack ends in a clear error or a bound,
 * never in a stalled or bloated host. The bounds are checked in the sandbox process (so the
 * data never crosses) and again by the host (see host-bounds.test.ts, engine-agnostic).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { deferred, errorOf, tool, valueOf } from '../runtime/js/helpers.ts';
import { v8Runtime } from './v8.ts';

const runtime = v8Runtime();
after(() => runtime.close());

test('four million empty console.log() calls end the run at maxLogEntries', async () => {
  const result = await runtime.execute('console.log("first"); for (let i = 0; i < 4e6; i++) console.log(); return "finished";', {
    tools: [],
    timeoutMs: 120_000,
  });
  const error = errorOf(result);
  assert.equal(error.kind, 'script');
  assert.equal(error.name, 'RangeError');
  assert.match(error.message, /more than 10000 log entries \(limit maxLogEntries\)/);
  assert.equal(result.logs.length, 10_000);
  assert.deepEqual(result.logs[0], { level: 'log', message: 'first' });
});

test('calls with large arguments in flight stop at maxInFlightBytes, rejecting inside the script', async () => {
  let received = 0;
  let receivedBytes = 0;
  const release = deferred<void>();
  const hold = tool('hold', async (args) => {
    received++;
    receivedBytes += JSON.stringify(args).length;
    await release.promise;
    return 'held';
  });
  const releaseTool = tool('release', async () => {
    release.resolve();
    return null;
  });
  // 200 calls of 1 MiB each (the reported attack made 1,000): far past the 64 MiB default.
  const value = valueOf(await runtime.execute(
    `const big = 'x'.repeat((1 << 20) - 16);
     const calls = [];
     for (let i = 0; i < 200; i++) calls.push(tools.hold({ big }).then(() => 'ok', (e) => e.name + ': ' + e.message));
     await tools.release();
     const outcomes = await Promise.all(calls);
     const rejected = outcomes.filter((o) => o !== 'ok');
     return { ok: outcomes.length - rejected.length, rejected: rejected.length, first: rejected[0] };`,
    { tools: [hold, releaseTool], timeoutMs: 120_000 },
  )) as { ok: number; rejected: number; first: string };
  assert.ok(value.ok >= 1 && value.ok <= 64, `${value.ok} calls went out`);
  assert.equal(value.ok + value.rejected, 200);
  assert.match(value.first, /^RangeError: .*tools\.hold.*67108864-byte limit \(maxInFlightBytes\)/);
  assert.equal(received, value.ok);
  assert.ok(receivedBytes <= 64 << 20, `${receivedBytes} bytes reached the host`);
});

test('a return value nested 4,185 levels deep fails as a script error and keeps the logs', async () => {
  const result = await runtime.execute('console.log("kept"); let v = 1; for (let i = 0; i < 4185; i++) v = [v]; return v;', { tools: [] });
  const error = errorOf(result);
  assert.equal(error.kind, 'script');
  assert.equal(error.name, 'RangeError');
  assert.match(error.message, /nested deeper than 256 levels \(limit maxDepth\)/);
  assert.deepEqual(result.logs, [{ level: 'log', message: 'kept' }]);
});

test('arguments nested past maxDepth are refused inside the script; logged values are rendered to a bounded depth', async () => {
  let called = false;
  const value = valueOf(await runtime.execute(
    `let deep = {}; for (let i = 0; i < 300; i++) deep = { d: deep };
     let shallow = {}; for (let i = 0; i < 250; i++) shallow = { d: shallow };
     const call = await tools.spy(deep).then(() => 'called', (e) => e.name + ': ' + e.message);
     let log = 'logged';
     try { console.log(deep); } catch (e) { log = e.name + ': ' + e.message; }
     console.log(shallow);
     return { call, log, shallow: await tools.spy(shallow).then(() => 'called') };`,
    { tools: [tool('spy', async () => { called = true; return null; })] },
  )) as { call: string; log: string; shallow: string };
  assert.match(value.call, /^RangeError: the arguments of tools\.spy are nested deeper than 256 levels \(limit maxDepth\)/);
  // The inspector renders three levels and elides the rest: no deep text ever reaches the host.
  assert.equal(value.log, 'logged');
  assert.equal(value.shallow, 'called');
  assert.equal(called, true);
});
