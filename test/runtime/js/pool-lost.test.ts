/**
 * A QuickJS process lost after a run was placed on it but before that run listened for it: the
 * pool tells the runs it hosted when it loses a process, and a run not yet listening was not
 * among them, so it waited out its whole time limit (a hang, then `timeout`) instead of failing
 * at once. Two ways in, each made deterministic by a rogue process that writes what the host
 * must read in one chunk: lost in the turn it became ready; lost right after the idle that
 * handed a queued run to it. The process pool (`quickjsThreads: false`); the thread
 * counterparts are in thread-faults.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { errorOf, tool, valueOf } from './helpers.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.mjs`, import.meta.url));
/** Far longer than failing takes: a run that reaches it hung (its error kind is then `timeout`). */
const HANG_MS = 20_000;

test('a run placed on a process lost in the turn it became ready fails as sandbox, without waiting out its limit', async () => {
  const runtime = new JsRuntime({ engine: 'quickjs', quickjsThreads: false, sandboxEntry: fixture('rogue-ready-then-garbage'), pool: { maxProcesses: 1, minProcesses: 0 } });
  try {
    const error = errorOf(await runtime.execute('return await tools.echo({})', { tools: [tool('echo')], timeoutMs: HANG_MS }));
    assert.equal(error.kind, 'sandbox', `the run hung until its time limit: ${error.message}`);
    assert.match(error.message, /broken sandbox bridge: frame of \d+ bytes/);
  } finally {
    await runtime.close();
  }
});

test('a queued run handed a process whose next frame breaks it fails as sandbox, without waiting out its limit', async () => {
  const runtime = new JsRuntime({
    engine: 'quickjs',
    quickjsThreads: false,
    sandboxEntry: fixture('rogue-idle-then-garbage'),
    pool: { maxProcesses: 1, minProcesses: 0, runsPerProcess: 1 },
  });
  const tools = [tool('echo')];
  try {
    // The first run takes the only slot; the second waits for it in the queue.
    const first = runtime.execute('return 1', { tools, timeoutMs: HANG_MS });
    const second = runtime.execute('return 2', { tools, timeoutMs: HANG_MS });
    assert.equal(valueOf(await first), 1);
    const error = errorOf(await second);
    assert.equal(error.kind, 'sandbox', `the queued run hung until its time limit: ${error.message}`);
    assert.match(error.message, /broken sandbox bridge: frame of \d+ bytes/);
  } finally {
    await runtime.close();
  }
});
