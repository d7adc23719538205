/**
 * The QuickJS pool under conversations that come and go (issue 13): a conversation's VM slot is
 * freed when it ends, and a run that follows another — the first one's idle confirmation still
 * in flight — starts no new process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QuickjsPool } from '../../../src/runtime/js/engines/quickjs/pool.ts';
import { resolvePoolOptions } from '../../../src/runtime/js/engines/pool-options.ts';
import { DEFAULT_LIMITS } from '../../../src/runtime/js/limits.ts';

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
