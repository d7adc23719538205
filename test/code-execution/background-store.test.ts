/**
 * Background scripts with a store (background/stored.ts, docs/durable.md): another host on the
 * same store answers `status`/`wait` for a script of the same conversation — running while its
 * host renews the lease, its outcome once it ends — and reports it lost, never re-running it,
 * once its host stops renewing; another conversation naming the id gets the unknown-id answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../../src/store/memory.ts';
import { DurableRuns } from '../../src/code-execution/durable-runs.ts';
import { UNKNOWN_SCRIPT } from '../../src/code-execution/background/actions.ts';
import { waitUntil } from '../helpers/peers.ts';
import { backgroundRig } from './background-rig.ts';

test('another host on the store reads a running script, then waits for its outcome; another conversation cannot reach it', async () => {
  const store = new MemoryStore();
  const a = backgroundRig({ durable: new DurableRuns(store), backgroundLeaseMs: 3_000 });
  const b = backgroundRig({ durable: new DurableRuns(store) });
  try {
    const started = a.envelope(await a.call('conv', { code: 'await tools.hold({}); return 6 * 7;', background: true, wait_ms: 0 }));
    assert.equal(started.status, 'running');
    const id = started.scriptId!;
    // The lease is renewed while the script runs (an event: the row's lease moved).
    const first = (await store.getScript(id))!.leaseUntil;
    await waitUntil(async () => (await store.getScript(id))!.leaseUntil > first, 'a lease renewal', 30_000);
    assert.equal(b.envelope(await b.call('conv', { action: 'status', scriptId: id })).status, 'running');
    for (const action of ['status', 'wait', 'cancel']) {
      assert.equal(b.text(await b.call('other', { action, scriptId: id, wait_ms: 0 })), UNKNOWN_SCRIPT);
    }
    assert.match(b.text(await b.call('conv', { action: 'cancel', scriptId: id })), /running at another instance; it can be cancelled only there/);
    const waiting = b.call('conv', { action: 'wait', scriptId: id, wait_ms: 60_000 });
    await a.release();
    const done = b.envelope(await waiting);
    assert.deepEqual([done.status, done.ok, done.value, done.scriptId], ['completed', true, 42, id]);
    assert.equal(a.holds(), 1);
  } finally {
    await a.close();
    await b.close();
  }
});

test('a script whose host stopped renewing its lease is reported lost at another host, and is not run again', async () => {
  const store = new MemoryStore();
  const a = backgroundRig({ durable: new DurableRuns(store), backgroundLeaseMs: 300 });
  const b = backgroundRig({ durable: new DurableRuns(store) });
  try {
    const id = a.envelope(await a.call('conv', { code: 'await tools.hold({}); return 1;', background: true, wait_ms: 0 })).scriptId!;
    await waitUntil(() => a.held.length === 1, 'the hold call', 30_000);
    // Host A stops renewing, as a host that died or hangs would.
    await a.ce.background.stored!.close();
    let answer = '';
    await waitUntil(async () => {
      answer = b.text(await b.call('conv', { action: 'status', scriptId: id }));
      return /stopped before it ended/.test(answer);
    }, 'the lost answer', 30_000);
    assert.match(answer, /its outcome is unknown, and it was not run again/);
    assert.equal(b.text(await b.call('conv', { action: 'wait', scriptId: id, wait_ms: 0 })), answer);
    assert.equal(a.holds() + b.holds(), 1, 'the script ran once, at host A only');
  } finally {
    a.held.splice(0).forEach((go) => go());
    await a.close();
    await b.close();
  }
});

test('the conversation ending removes its scripts\' rows; the host closing keeps a running one\'s outcome (cancelled)', async () => {
  const store = new MemoryStore();
  const a = backgroundRig({ durable: new DurableRuns(store) });
  const b = backgroundRig({ durable: new DurableRuns(store) });
  try {
    const one = a.envelope(await a.call('c1', { code: 'await tools.hold({}); return 1;', background: true, wait_ms: 0 })).scriptId!;
    await a.release();
    assert.equal(a.envelope(await a.call('c1', { action: 'wait', scriptId: one, wait_ms: 60_000 })).status, 'completed');
    await waitUntil(async () => (await store.getScript(one))?.state === 'completed', 'the outcome row', 30_000);
    await a.ce.endConversation('c1');
    await waitUntil(async () => (await store.getScript(one)) === undefined, 'the row removed', 30_000);
    assert.equal(b.text(await b.call('c1', { action: 'status', scriptId: one })), UNKNOWN_SCRIPT);
    const two = a.envelope(await a.call('c2', { code: 'await tools.hold({}); return 2;', background: true, wait_ms: 0 })).scriptId!;
    await waitUntil(() => a.held.length === 1, 'the hold call', 30_000);
    await a.close();
    const after = b.envelope(await b.call('c2', { action: 'status', scriptId: two }));
    assert.deepEqual([after.status, after.ok], ['cancelled', false]);
  } finally {
    a.held.splice(0).forEach((go) => go());
    await b.close();
  }
});
