/**
 * The contract every store keeps (src/store/types.ts), run against each store by its test: a run
 * is taken at most once however many takers race, an expired or unknown run is not handed out,
 * and the bound on paused runs holds.
 */
import assert from 'node:assert/strict';
import { StoreFullError, type DurableStore } from '../../src/store/types.ts';

/** The contract every store keeps; `make(maxRuns)` opens a fresh, empty one. */
export async function storeContract(make: (maxRuns: number, maxShapeTools?: number) => Promise<DurableStore>): Promise<void> {
  const store = await make(3);
  try {
    const later = Date.now() + 60_000;
    await store.putRun({ id: 'a', binding: 'b-a', data: '{"x":1}', expiresAt: later });
    // Ten takers at once: exactly one gets the run.
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => store.claimRun('a', `owner-${i}`)));
    assert.equal(outcomes.filter((o) => o.claimed).length, 1);
    const won = outcomes.find((o) => o.claimed)!;
    assert.deepEqual(won.claimed && won.run, { id: 'a', binding: 'b-a', data: '{"x":1}', expiresAt: later });
    assert.ok(outcomes.filter((o) => !o.claimed).every((o) => !o.claimed && o.reason === 'taken'));
    assert.deepEqual(await store.claimRun('nope', 'me'), { claimed: false, reason: 'unknown' });
    await assert.rejects(store.putRun({ id: 'a', binding: 'b', data: '{}', expiresAt: later }));
    // Expired: not handed out (and swept at the next put).
    await store.putRun({ id: 'old', binding: 'b', data: '{}', expiresAt: Date.now() - 1 });
    assert.deepEqual(await store.claimRun('old', 'me'), { claimed: false, reason: 'expired' });
    // The bound counts paused runs only ('a' was taken).
    await store.putRun({ id: 'p1', binding: 'b', data: '{}', expiresAt: later });
    await store.putRun({ id: 'p2', binding: 'b', data: '{}', expiresAt: later });
    await store.putRun({ id: 'p3', binding: 'b', data: '{}', expiresAt: later });
    assert.equal(await store.countPaused(), 3);
    await assert.rejects(store.putRun({ id: 'p4', binding: 'b', data: '{}', expiresAt: later }), StoreFullError);
    await store.deleteRun('p1');
    assert.equal(await store.countPaused(), 2);
    await store.putRun({ id: 'p4', binding: 'b', data: '{}', expiresAt: later });
  } finally {
    await store.close();
  }
}

/** Learned shapes: saved per tool, replaced on a new save, the tools saved longest ago dropped past the bound. */
export async function shapesContract(make: (maxRuns: number, maxShapeTools?: number) => Promise<DurableStore>): Promise<void> {
  const store = await make(3, 2);
  try {
    assert.deepEqual(await store.loadShapes(), {});
    await store.saveShapes({ a: '{"k":"a1"}', b: '{"k":"b1"}' });
    assert.deepEqual(await store.loadShapes(), { a: '{"k":"a1"}', b: '{"k":"b1"}' });
    await new Promise((r) => setTimeout(r, 2));
    await store.saveShapes({ a: '{"k":"a2"}' });
    assert.deepEqual(await store.loadShapes(), { a: '{"k":"a2"}', b: '{"k":"b1"}' });
    // Over the bound of 2 tools: the one saved longest ago (b) goes.
    await new Promise((r) => setTimeout(r, 2));
    await store.saveShapes({ c: '{"k":"c1"}' });
    assert.deepEqual(await store.loadShapes(), { a: '{"k":"a2"}', c: '{"k":"c1"}' });
  } finally {
    await store.close();
  }
}

/**
 * Background scripts: a row is written, replaced by its outcome, renewed only while running and
 * only for its owner, hidden once expired, and the row bound holds (a replaced row is not new).
 */
export async function scriptsContract(make: (maxScripts: number) => Promise<DurableStore>): Promise<void> {
  const store = await make(2);
  try {
    const now = Date.now();
    const running = { id: 's1', conversation: 'c1', owner: 'o1', state: 'running' as const, data: '{"t":1}', leaseUntil: now + 1_000, expiresAt: now + 60_000 };
    await store.putScript(running);
    assert.deepEqual(await store.getScript('s1'), running);
    assert.equal(await store.getScript('nope'), undefined);
    // Renewed for its owner only; the renewal names the rows it renewed.
    assert.deepEqual(await store.renewScripts('o2', now + 5_000, now + 90_000), []);
    assert.equal((await store.getScript('s1'))!.leaseUntil, now + 1_000);
    assert.deepEqual(await store.renewScripts('o1', now + 5_000, now + 90_000), ['s1']);
    assert.deepEqual(await store.getScript('s1'), { ...running, leaseUntil: now + 5_000, expiresAt: now + 90_000 });
    // A running row is replaced through the compare-and-set only for its own conversation.
    const moved = { ...running, data: '{"t":2}', leaseUntil: now + 5_000, expiresAt: now + 90_000 };
    assert.equal(await store.replaceRunningScript({ ...moved, conversation: 'c2', data: '{"t":"theirs"}' }), false);
    assert.equal(await store.replaceRunningScript(moved), true);
    assert.deepEqual(await store.getScript('s1'), moved);
    assert.equal(await store.replaceRunningScript({ ...moved, id: 'nope' }), false);
    // Its outcome replaces it (no new row); an ended script's lease is no longer renewed.
    const ended = { ...running, state: 'completed' as const, data: '{"content":[]}', leaseUntil: 0, expiresAt: now + 60_000 };
    await store.putScript(ended);
    assert.deepEqual(await store.renewScripts('o1', now + 9_000, now + 99_000), []);
    assert.deepEqual(await store.getScript('s1'), ended);
    // The first end wins: an ended row is never replaced through the compare-and-set.
    assert.equal(await store.replaceRunningScript({ ...running, state: 'cancelled', data: '{"late":true}' }), false);
    assert.deepEqual(await store.getScript('s1'), ended);
    await store.putScript({ ...running, id: 's2' });
    // The bound: two rows; a third new one is refused, a replaced one is not.
    await assert.rejects(store.putScript({ ...running, id: 's3' }), StoreFullError);
    await store.putScript({ ...running, id: 's2', state: 'cancelled' });
    await store.deleteScript('s2');
    // An expired row is not read, and it is swept at the next write.
    await store.putScript({ ...running, id: 'old', expiresAt: Date.now() - 1 });
    assert.equal(await store.getScript('old'), undefined);
    await store.putScript({ ...running, id: 's4' });
  } finally {
    await store.close();
  }
}

/**
 * Conversation grants: kept per conversation and tool, read only by their own conversation,
 * oldest first; a write is all or none; both bounds hold (a replaced row is not new); expired
 * rows are not read and are swept at the next write; deletes count what went.
 */
export async function grantsContract(make: (maxGrants: number, maxPerConversation: number) => Promise<DurableStore>): Promise<void> {
  const store = await make(5, 3);
  try {
    const now = Date.now();
    const later = now + 60_000;
    const grant = (tool: string, grantedAt = now, grantedFor = 'call-1') => ({ tool, grantedAt, grantedFor, expiresAt: later });
    assert.deepEqual(await store.loadGrants('a'), []);
    await store.putGrants('a', [grant('t2', now + 1), grant('t1')]);
    assert.deepEqual(await store.loadGrants('a'), [{ conversation: 'a', ...grant('t1') }, { conversation: 'a', ...grant('t2', now + 1) }]);
    // Tenants: conversation b reads nothing of a's.
    assert.deepEqual(await store.loadGrants('b'), []);
    // Replaced, not added: the same tool granted again.
    await store.putGrants('a', [grant('t1', now + 2, 'call-2')]);
    assert.deepEqual((await store.loadGrants('a')).map((g) => [g.tool, g.grantedFor]), [['t2', 'call-1'], ['t1', 'call-2']]);
    // The bound per conversation (3): a fourth tool is refused, all or none; a replaced one is not.
    await store.putGrants('a', [grant('t3', now + 3)]);
    await assert.rejects(store.putGrants('a', [grant('t4', now + 4), grant('t1', now + 4)]), StoreFullError);
    assert.deepEqual((await store.loadGrants('a')).map((g) => [g.tool, g.grantedAt]), [['t2', now + 1], ['t1', now + 2], ['t3', now + 3]]);
    await store.putGrants('a', [grant('t3', now + 5)]);
    // The bound per store (5): b's two fit, c's one does not, and nothing of c's is kept.
    await store.putGrants('b', [grant('u1'), grant('u2')]);
    await assert.rejects(store.putGrants('c', [grant('v1')]), StoreFullError);
    assert.deepEqual(await store.loadGrants('c'), []);
    // Deletes: one tool, then the rest of a conversation; another conversation's stay.
    assert.equal(await store.deleteGrants('a', 't1'), 1);
    assert.equal(await store.deleteGrants('a', 't1'), 0);
    assert.equal(await store.deleteGrants('a'), 2);
    assert.equal(await store.deleteGrants('nobody'), 0);
    assert.deepEqual(await store.loadGrants('a'), []);
    assert.deepEqual((await store.loadGrants('b')).map((g) => g.tool), ['u1', 'u2']);
    // Expired: not read, and swept at the next write (so it no longer counts against the bound).
    await store.putGrants('d', [{ ...grant('old'), expiresAt: Date.now() - 1 }, grant('w1'), grant('w2')]);
    assert.deepEqual((await store.loadGrants('d')).map((g) => g.tool), ['w1', 'w2']);
    await store.putGrants('e', [grant('x1')]);
    assert.deepEqual((await store.loadGrants('e')).map((g) => g.tool), ['x1']);
  } finally {
    await store.close();
  }
}
