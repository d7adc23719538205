/**
 * QuickJS sessions at the runtime level: what a kept VM re-binds at each run (tools, globals,
 * helpers, pending calls), what a run leaves for the next, and the bound on kept VMs per process.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { deferred, global, tool, valueOf } from './helpers.ts';

const runtime = new JsRuntime({ pool: { maxProcesses: 1, runsPerProcess: 4 } });
after(() => runtime.close());

test('each run of a session binds its own tools and globals; the helpers come back if a script replaced them', async () => {
  const c = { conversation: 'rebind' };
  valueOf(await runtime.execute('keptFn = () => tools.a({ n: 1 }); print = 1; console = null; inspect = "x"; return 1;', {
    tools: [tool('a', async () => 'first a'), global('helper', async () => 'first helper')], ...c,
  }));
  const second = await runtime.execute(
    'print("ok"); console.log(typeof inspect({})); return [await tools.b({}), await helper(), Object.keys(tools), await (async () => keptFn())().catch((e) => e.message)];',
    { tools: [tool('b', async () => 'second b'), global('helper', async () => 'second helper')], ...c },
  );
  const value = valueOf(second) as unknown[];
  assert.deepEqual(value.slice(0, 3), ['second b', 'second helper', ['b']]);
  // A function kept from the first run calls through the current tools: `a` is gone.
  assert.match(String(value[3]), /tools\.a is not a tool/);
  assert.equal(second.stdout, 'ok\n');
  assert.deepEqual(second.logs, [{ level: 'log', message: 'string' }]);
  assert.deepEqual(second.session, { fresh: false });
});

test('a call an earlier run left pending never settles in a later one', async () => {
  const c = { conversation: 'pending' };
  const gate = deferred<string>();
  valueOf(await runtime.execute('leftover = tools.slow({}).then((v) => { late = v; }); return 1;', {
    tools: [tool('slow', () => gate.promise)], ...c,
  }));
  gate.resolve('too late');
  // The second run's call gets id 1 again: it must receive its own answer, not the old one's.
  const value = valueOf(await runtime.execute('const v = await tools.fast({}); return [v, typeof late];', {
    tools: [tool('fast', async () => 'mine')], ...c,
  }));
  assert.deepEqual(value, ['mine', 'undefined']);
});

test('a sandbox process keeps at most 32 sessions: the least recently used starts fresh and says so', async () => {
  // On threads, sessions between runs are bounded in bytes instead (session-budget.test.ts).
  const processes = new JsRuntime({ quickjsThreads: false, pool: { maxProcesses: 1, runsPerProcess: 4 } });
  try {
    for (let i = 0; i < 34; i++) {
      valueOf(await processes.execute(`mark = ${i}; return 1;`, { tools: [], conversation: `many-${i}` }));
    }
    const oldest = await processes.execute('return typeof mark;', { tools: [], conversation: 'many-0' });
    assert.deepEqual([valueOf(oldest), oldest.session], ['undefined', { fresh: true }]);
    const newest = await processes.execute('return mark;', { tools: [], conversation: 'many-33' });
    assert.deepEqual([valueOf(newest), newest.session], [33, { fresh: false }]);
  } finally {
    await processes.close();
  }
});
