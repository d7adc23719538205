/**
 * The host's byte budget for QuickJS sessions between runs (src/runtime/session-budget.ts):
 * counted in bytes, not sessions; evicted least recently used; fair across tenants, so one
 * tenant's many conversations cannot clear another's kept session.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { overBudget, tenantOf } from '../../../src/runtime/session-budget.ts';
import { fragmenting } from './fragmenting.ts';
import { valueOf } from './helpers.ts';

const MIB = 1024 * 1024;

test('the tenant of a conversation is its id up to the first slash (serve names a session\'s conversations <session>/<name>)', () => {
  assert.equal(tenantOf('s1/main'), 's1');
  assert.equal(tenantOf('s1/a/b'), 's1');
  assert.equal(tenantOf('plain'), 'plain');
});

test('over budget, the least recently used session of a tenant over its share goes; a tenant within its share keeps its own', () => {
  const held = [
    { name: 'b/kept', bytes: 10, lastUsed: 0 }, // the oldest of all, but b is within its share
    ...Array.from({ length: 20 }, (_, i) => ({ name: `a/${i}`, bytes: 10, lastUsed: i + 1 })),
  ];
  const victims = overBudget(held, 100);
  assert.deepEqual(victims, Array.from({ length: 11 }, (_, i) => `a/${i}`));
  // A tenant alone may use the whole budget; within it, least recently used first.
  assert.deepEqual(overBudget([{ name: 'x/1', bytes: 60, lastUsed: 2 }, { name: 'x/2', bytes: 60, lastUsed: 1 }], 100), ['x/2']);
  assert.deepEqual(overBudget(held, 1000), []);
});

const runtime = new JsRuntime({ pool: { maxProcesses: 1, sessionBudgetMb: 16 } });
after(() => runtime.close());

test("two hundred one-run conversations of one tenant do not evict another tenant's kept session", async () => {
  valueOf(await runtime.execute('mark = "kept"; return 1', { tools: [], conversation: 'tenantB/main' }));
  // Each run takes the one thread: the sessions before it are parked in the host (~0.4 MB each).
  for (let i = 0; i < 200; i++) valueOf(await runtime.execute(`n = ${i}; return 1`, { tools: [], conversation: `tenantA/c${i}` }));
  assert.ok(runtime.stats().sessionBytes <= 16 * MIB, `sessions hold ${runtime.stats().sessionBytes} bytes, budget 16 MiB`);
  const b = await runtime.execute('return mark', { tools: [], conversation: 'tenantB/main' });
  assert.deepEqual([valueOf(b), b.session], ['kept', { fresh: false }]);
  // Tenant A paid with its own oldest sessions, and was told so.
  const oldest = await runtime.execute('return typeof n', { tools: [], conversation: 'tenantA/c0' });
  assert.deepEqual([valueOf(oldest), oldest.session], ['undefined', { fresh: true }]);
  const newest = await runtime.execute('return n', { tools: [], conversation: 'tenantA/c199' });
  assert.deepEqual([valueOf(newest), newest.session], [199, { fresh: false }]);
});

test('three conversations with fragmented heaps stay within the budget: the least recently used starts fresh', async () => {
  const budgeted = new JsRuntime({ pool: { maxProcesses: 1, sessionBudgetMb: 64 } });
  try {
    for (const name of ['f1', 'f2', 'f3']) {
      // ~30 MiB of memory each (a few MiB live), within heapMb 64's footprint bound.
      valueOf(await budgeted.execute(fragmenting(30), { tools: [], conversation: name, limits: { heapMb: 64 } }));
      assert.ok(budgeted.stats().sessionBytes <= 64 * MIB, `after ${name}: ${budgeted.stats().sessionBytes} bytes held, budget 64 MiB`);
    }
    const first = await budgeted.execute('return typeof kept', { tools: [], conversation: 'f1' });
    assert.deepEqual([valueOf(first), first.session], ['undefined', { fresh: true }]);
  } finally {
    await budgeted.close();
  }
});

test("in a sandbox process too, one tenant's forty conversations do not evict another tenant's kept session", async () => {
  // Sandbox processes keep VMs in the process itself; the host decides which go, by the same
  // fair rule, before the process's own cap is reached (pool.ts PROCESS_SESSIONS).
  const processes = new JsRuntime({ quickjsThreads: false, isolation: 'none', pool: { maxProcesses: 1 } });
  try {
    valueOf(await processes.execute('mark = "kept"; return 1', { tools: [], conversation: 'tenantB/main' }));
    for (let i = 0; i < 40; i++) valueOf(await processes.execute(`n = ${i}; return 1`, { tools: [], conversation: `tenantA/c${i}` }));
    const b = await processes.execute('return String(globalThis.mark)', { tools: [], conversation: 'tenantB/main' });
    assert.deepEqual([valueOf(b), b.session], ['kept', { fresh: false }]);
    // tenantA's own least recently used sessions went instead.
    const oldest = await processes.execute('return String(globalThis.n)', { tools: [], conversation: 'tenantA/c0' });
    assert.deepEqual([valueOf(oldest), oldest.session], ['undefined', { fresh: true }]);
    const newest = await processes.execute('return String(globalThis.n)', { tools: [], conversation: 'tenantA/c39' });
    assert.deepEqual([valueOf(newest), newest.session], ['39', { fresh: false }]);
  } finally {
    await processes.close();
  }
});
