/**
 * Warm sandbox processes: reused after a clean run, replaced after a run that left a spin
 * behind, a timeout or a crash.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { errorOf, tool, valueOf } from './helpers.ts';

/** Resolves once `condition` holds, checking after every turn of the event loop. */
function until(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (condition() ? resolve() : setImmediate(check));
    check();
  });
}

describe('reuse', () => {
  const runtime = new JsRuntime({ engine: 'v8', poolSize: 1 });
  after(() => runtime.close());

  test('consecutive runs reuse warm processes instead of starting new ones', async () => {
    for (let i = 0; i < 20; i++) assert.equal(valueOf(await runtime.execute(`return ${i};`, { tools: [] })), i);
    const stats = runtime.stats();
    assert.ok(stats.processesStarted <= 2, `started ${stats.processesStarted}`);
    assert.equal(stats.processesKilled, 0);
  });

  test('a run that returns while calls are still pending leaves a reusable process', async () => {
    const before = runtime.stats();
    valueOf(await runtime.execute('tools.slow({}); return 1;', { tools: [tool('slow', () => new Promise(() => {}))] }));
    valueOf(await runtime.execute('return 2;', { tools: [] }));
    assert.equal(runtime.stats().processesKilled, before.processesKilled);
  });

  test('a spin left behind after return: the result comes at once, the process is replaced', async () => {
    const before = runtime.stats();
    const result = await runtime.execute('(async () => { for (;;) await null; })(); return "returned";', { tools: [] });
    assert.equal(valueOf(result), 'returned');
    // The result arrived while the spinning process was still alive: it did not wait for the check.
    assert.equal(runtime.stats().processesKilled, before.processesKilled);
    await until(() => runtime.stats().processesKilled === before.processesKilled + 1);
    const next = await Promise.all([1, 2].map((n) => runtime.execute(`return ${n};`, { tools: [] })));
    assert.deepEqual(next.map(valueOf), [1, 2]);
  });

  test('a timed-out process is killed and the next run gets a fresh one', async () => {
    const before = runtime.stats();
    assert.equal(errorOf(await runtime.execute('for (;;) {}', { tools: [], timeoutMs: 100 })).kind, 'timeout');
    assert.equal(runtime.stats().processesKilled, before.processesKilled + 1);
    assert.equal(valueOf(await runtime.execute('return "fresh";', { tools: [] })), 'fresh');
  });
});

describe('sizes', () => {
  test('with no spares, an idle process is still reused', async () => {
    const runtime = new JsRuntime({ engine: 'v8', poolSize: 0 });
    try {
      for (let i = 0; i < 5; i++) valueOf(await runtime.execute('return 1;', { tools: [] }));
      assert.equal(runtime.stats().processesStarted, 1);
    } finally {
      await runtime.close();
    }
  });

  test('a run with its own heap size gets a process of that size', async () => {
    const runtime = new JsRuntime({ engine: 'v8', poolSize: 0, limits: { heapMb: 64 } });
    try {
      const error = errorOf(await runtime.execute('const a = []; for (;;) a.push(new Array(1000).fill(1));', { tools: [], limits: { heapMb: 24 } }));
      assert.match(error.message, /heap limit 24 MiB/);
      assert.equal(valueOf(await runtime.execute('return 1;', { tools: [] })), 1);
    } finally {
      await runtime.close();
    }
  });
});

describe('orphans', () => {
  test('a sandbox process spinning when its host dies ends itself', async () => {
    const host = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./fixtures/orphaning-host.ts', import.meta.url))], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    host.stdout.setEncoding('utf8');
    host.stdout.on('data', (text: string) => (out += text));
    await new Promise((resolve) => host.once('close', resolve));
    const pid = Number(out.trim());
    assert.ok(pid > 0, `sandbox pid from the host: ${JSON.stringify(out)}`);
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await new Promise<void>((resolve) => {
      const check = () => (alive() ? setTimeout(check, 50) : resolve());
      check();
    });
    assert.equal(alive(), false);
  });
});
