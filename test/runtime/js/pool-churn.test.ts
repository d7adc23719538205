/**
 * The QuickJS pool under conversations that come and go (issue 13): a conversation's VM slot is
 * freed when it ends — in the host's pool and in the sandbox process — the process keeps no
 * slot of a conversation whose VM it evicted, and a run that follows another (the first one's
 * idle confirmation still in flight) starts no new process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QuickjsPool } from '../../../src/runtime/js/engines/quickjs/pool.ts';
import { resolvePoolOptions } from '../../../src/runtime/js/engines/pool-options.ts';
import { DEFAULT_LIMITS } from '../../../src/runtime/js/limits.ts';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { waitUntil } from '../../helpers/peers.ts';
import { tool, valueOf } from './helpers.ts';

test('a run whose predecessor only awaits its idle confirmation goes to the same process', async () => {
  const pool = new QuickjsPool(resolvePoolOptions({ maxProcesses: 4 }), undefined);
  try {
    const first = await pool.acquire('one', 1, DEFAULT_LIMITS);
    // Its outcome arrived; the process has not yet said it is idle.
    pool.finishing(first);
    const second = await pool.acquire('two', 2, DEFAULT_LIMITS);
    assert.equal(second.host, first.host, 'placed on the finishing process');
    assert.equal(pool.counts.started, 1, 'no process started for it');
    pool.release(first);
    pool.release(second);
  } finally {
    await pool.close();
  }
});

test('endConversation forgets an idle conversation at once, a busy one when its last run is released', async () => {
  const pool = new QuickjsPool(resolvePoolOptions({ maxProcesses: 1 }), undefined);
  try {
    const idle = await pool.acquire('idle', 1, DEFAULT_LIMITS);
    pool.release(idle);
    const busy = await pool.acquire('busy', 2, DEFAULT_LIMITS);
    assert.equal(pool.size.conversations, 2);
    pool.endConversation('idle');
    pool.endConversation('busy');
    assert.equal(pool.size.conversations, 1, 'the idle one is gone, the busy one waits for its run');
    pool.release(busy);
    assert.equal(pool.size.conversations, 0);
    pool.endConversation('never-seen');
  } finally {
    await pool.close();
  }
});

test('a sandbox process keeps at most 32 conversation slots, and none of an ended conversation', async () => {
  // One worker thread's slots.
  const runtime = new JsRuntime({ pool: { maxProcesses: 1 } });
  const tools = [tool('echo')];
  const pool = (runtime as unknown as { quickjs: QuickjsPool }).quickjs;
  try {
    // 40 conversations, never ended: the process keeps the 32 most recent VMs, and no slot of the others.
    for (let i = 0; i < 40; i++) valueOf(await runtime.execute('x = 1; return (await tools.echo({ i: 1 })).i;', { tools, conversation: `kept-${i}` }));
    await waitUntil(() => (pool.size.processSlots > 0 ? true : undefined), 'an idle report');
    assert.ok(pool.size.processSlots <= 32, `${pool.size.processSlots} slots held in the process`);
    // Ended ones leave nothing in the process either.
    for (let i = 0; i < 40; i++) runtime.endConversation(`kept-${i}`);
    // The last one's drop waits for its run's idle confirmation; once sent, it precedes the next run.
    await waitUntil(() => (pool.size.conversations === 0 ? true : undefined), 'every drop sent');
    valueOf(await runtime.execute('return 1;', { tools, conversation: 'last' }));
    await waitUntil(() => (pool.size.processSlots === 1 ? true : undefined), 'one slot: the last conversation');
  } finally {
    await runtime.close();
  }
});

test('a run under the name of a conversation ended while its last run finished starts fresh', async () => {
  const pool = new QuickjsPool(resolvePoolOptions({ maxProcesses: 1 }), undefined);
  try {
    const first = await pool.acquire('x', 1, DEFAULT_LIMITS);
    pool.settleSession(first, true, 1 << 20); // its process kept the VM: the next run would continue it
    pool.finishing(first);
    pool.endConversation('x'); // deferred: the run has not been released yet
    const next = await pool.acquire('x', 2, DEFAULT_LIMITS);
    assert.equal(next.fresh, true, 'nothing of the ended conversation is continued');
    pool.release(first);
    pool.release(next);
  } finally {
    await pool.close();
  }
});
