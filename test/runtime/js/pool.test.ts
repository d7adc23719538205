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

// The worker threads' reserve.
describe('the reserve thread (QuickJS on threads)', () => {
  test('a host with one conversation keeps one thread; a second conversation brings the reserve', async () => {
    // Before, the first run started a reserve thread at once: 10-16 MB a one-conversation host never used.
    const runtime = new JsRuntime({ engine: 'quickjs' });
    try {
      // Runs of no conversation, then of one: each finds the one thread idle (the first may find
      // it still starting; from the second on it is ready, and before, one more started then).
      for (let i = 0; i < 3; i++) assert.equal(valueOf(await runtime.execute(`return ${i}`, { tools: [] })), i);
      for (let i = 0; i < 3; i++) assert.equal(valueOf(await runtime.execute(`return ${i}`, { tools: [], conversation: 'a' })), i);
      assert.equal(runtime.stats().processesStarted, 1);
      // Another conversation: from now on one idle thread is kept ready for the next.
      assert.equal(valueOf(await runtime.execute('return "b"', { tools: [], conversation: 'b' })), 'b');
      assert.equal(runtime.stats().processesStarted, 2);
      assert.equal(valueOf(await runtime.execute('return "a again"', { tools: [], conversation: 'a' })), 'a again');
    } finally {
      await runtime.close();
    }
  });

  test('runs at once bring the reserve too', async () => {
    const runtime = new JsRuntime({ engine: 'quickjs' });
    /** Runs conversation a's script until the returned release is called. */
    const holdA = async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const run = runtime.execute('return await tools.hold({})', { tools: [tool('hold', async () => (entered(), await held, 1))], conversation: 'a' });
      await inside;
      return async () => {
        release();
        assert.equal(valueOf(await run), 1);
      };
    };
    try {
      // A run without a conversation while a's runs: it gets a thread of its own.
      let release = await holdA();
      assert.equal(valueOf(await runtime.execute('return 2', { tools: [] })), 2);
      await release();
      assert.equal(runtime.stats().processesStarted, 2);
      // Having seen runs at once, the pool keeps one idle thread beside the one it hands out.
      release = await holdA();
      assert.equal(valueOf(await runtime.execute('return 3', { tools: [] })), 3);
      await release();
      assert.equal(runtime.stats().processesStarted, 3);
    } finally {
      await runtime.close();
    }
  });
});
