import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { PythonRunner } from '../../../src/runtime/python/index.ts';
import type { ToolBinding } from '../../../src/runtime/types.ts';
import { deferred, processGone, tool } from './helpers.ts';

const runner = new PythonRunner({ interruptGraceMs: 150, killGraceMs: 1000 });
after(() => runner.close());
const run = (code: string, timeoutMs: number, tools: ToolBinding[] = [], signal?: AbortSignal) =>
  runner.run(code, signal ? { tools, timeoutMs, signal } : { tools, timeoutMs });
/** The interpreter's host pid (inside a bubblewrap namespace its own pid is always 1). */
const pid = async () => (await run('1', 5000), runner.pid!);

test('at the limit a script waiting at an await is cancelled there; the interpreter stays warm', async () => {
  const before = await pid();
  const r = await run('import asyncio\nkept = "still here"\nprint("started")\nawait asyncio.sleep(30)', 300);
  assert.equal(r.ok, false);
  assert.equal(r.error?.kind, 'timeout');
  assert.match(r.error?.message ?? '', /time limit of 300 ms was reached; the script stopped at its next await/);
  assert.equal(r.stdout, 'started\n');
  assert.match(r.stderr, /CancelledError/);
  assert.equal(runner.state, 'idle');
  assert.equal((await run('kept', 5000)).value, 'still here');
  assert.equal(await pid(), before);
});

test('a script blocking outside any await is interrupted with KeyboardInterrupt', async () => {
  const before = await pid();
  const r = await run('import time\nblocked = True\ntime.sleep(30)', 300);
  assert.equal(r.error?.kind, 'timeout');
  assert.match(r.error?.message ?? '', /the script was interrupted/);
  assert.equal(r.returnCode, 130);
  assert.match(r.stderr, /line 3, in <module>\n    time\.sleep\(30\)\n( +[~^]+\n)?KeyboardInterrupt\n$/);
  assert.equal((await run('blocked', 5000)).value, true);
  assert.equal(await pid(), before);
});

test('a pure-Python busy loop is interrupted too', async () => {
  const r = await run('n = 0\nwhile True:\n    n += 1', 300);
  assert.equal(r.error?.kind, 'timeout');
  assert.match(r.stderr, /KeyboardInterrupt/);
  assert.ok(((await run('n', 5000)).value as number) > 0);
});

test('a script that swallows cancellation at an await is interrupted by the retrying SIGINT', async () => {
  const r = await run(
    'import asyncio\nwhile True:\n    try:\n        await asyncio.sleep(0)\n    except asyncio.CancelledError:\n        pass',
    300,
  );
  assert.equal(r.error?.kind, 'timeout');
  assert.match(r.error?.message ?? '', /interrupted/);
  assert.equal(runner.state, 'idle');
});

test('a script that ignores the interrupt is killed; the next run gets a fresh interpreter', async () => {
  const before = await pid();
  await run('marker = 1', 5000);
  const r = await run('import time\nwhile True:\n    try:\n        time.sleep(30)\n    except BaseException:\n        print("ignored")', 300);
  assert.equal(r.error?.kind, 'timeout');
  assert.match(r.error?.message ?? '', /did not stop and was killed/);
  assert.equal(r.returnCode, 137);
  assert.equal(r.stdout, 'ignored\n');
  assert.equal(runner.state, 'dead');
  assert.ok(processGone(before));
  const fresh = await run('marker', 5000);
  assert.equal(fresh.error?.name, 'NameError');
  assert.notEqual(await pid(), before);
});

test('pauseClock stops the limit while a call holds it', async () => {
  const paused = tool('approve', async (_args, ctx) => {
    const resume = ctx.pauseClock();
    await new Promise((resolve) => setTimeout(resolve, 600));
    resume();
    return 'approved';
  });
  const r = await run('await tools.approve()', 300, [paused]);
  assert.equal(r.ok, true, r.error?.message);
  assert.equal(r.value, 'approved');
});

test('without pauseClock the same wait hits the limit, and the call is reported cancelled', async () => {
  const slow = tool('approve', () => new Promise((resolve) => setTimeout(() => resolve('approved'), 600)));
  const r = await run('await tools.approve()', 300, [slow]);
  assert.equal(r.error?.kind, 'timeout');
  assert.deepEqual(r.calls.map((c) => c.status), ['cancelled']);
});

test('aborting the signal stops the run as aborted', async () => {
  const controller = new AbortController();
  const entered = deferred();
  const gate = tool('gate', () => (entered.resolve(null), new Promise(() => {})));
  const running = run('await tools.gate()', 30_000, [gate], controller.signal);
  await entered.promise;
  controller.abort();
  const r = await running;
  assert.equal(r.error?.kind, 'aborted');
  assert.deepEqual(r.calls.map((c) => c.status), ['cancelled']);
  assert.equal(runner.state, 'idle');
});

test('a signal aborted before the run starts refuses it without running anything', async () => {
  const r = await run('print("never")', 5000, [], AbortSignal.abort());
  assert.equal(r.error?.kind, 'aborted');
  assert.equal(r.stdout, '');
});

test('tasks the script leaves running are cancelled when the run ends', async () => {
  const r = await run('import asyncio\nasync def forever():\n    await asyncio.sleep(30)\nleft = asyncio.ensure_future(forever())\nawait asyncio.sleep(0)', 5000);
  assert.equal(r.ok, true, r.stderr);
  assert.equal((await run('left.cancelled()', 5000)).value, true);
});
