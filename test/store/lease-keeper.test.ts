/**
 * One lease keeper per store (src/store/lease-keeper.ts): background scripts and 2026 tasks of
 * one process on one store object, with the same terms, are rows of one owner renewed by one
 * statement; a task cancelled at another instance is still seen and stopped at a renewal (the
 * tasks' use of the renewed ids), while a script beside it is not (scripts pass no callback);
 * other terms get another owner. Waits are bounded by events (renewal statements), not time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { MemoryStore } from '../../src/store/memory.ts';
import { StoredScripts } from '../../src/code-execution/background/stored.ts';
import { StoredTasks, type DetailedTask } from '../../src/serve/modern/stored-tasks.ts';
import { MAX_TASK_TTL_MS } from '../../src/serve/task-records.ts';
import { waitUntil } from '../helpers/peers.ts';

const logger = pino({ level: 'silent' });
const LEASE_MS = 150;

/** A memory store that records each renewal statement: its owner and the ids it renewed. */
class CountingStore extends MemoryStore {
  readonly renewals: { owner: string; ids: string[] }[] = [];
  override async renewScripts(owner: string, leaseUntil: number, expiresAt: number): Promise<string[]> {
    const ids = await super.renewScripts(owner, leaseUntil, expiresAt);
    this.renewals.push({ owner, ids: [...ids].sort() });
    return ids;
  }
}

const timeLimit = { requestedMs: 60_000, appliedMs: 60_000, capped: false };
const task = (taskId: string): DetailedTask => ({ taskId, status: 'working', createdAt: new Date().toISOString(), ttlMs: MAX_TASK_TTL_MS });

test('scripts and tasks of one store share one owner and one renewal statement; a task cancelled elsewhere stops at a renewal, the script beside it runs on', async () => {
  const store = new CountingStore();
  const scripts = new StoredScripts(store, MAX_TASK_TTL_MS, logger, LEASE_MS);
  const tasks = new StoredTasks(store, logger, LEASE_MS);
  const stopped: string[] = [];
  try {
    await scripts.started({ scriptId: 'script-1', conversationId: 'conv', timeLimit, status: 'running' });
    await tasks.started('alice', task('task-1'), (message) => stopped.push(message));
    const [scriptRow, taskRow] = [(await store.getScript('script-1'))!, (await store.getScript('task-1'))!];
    assert.equal(scriptRow.owner, taskRow.owner, 'one owner for the process on this store');

    // One statement renews both rows.
    const seen = store.renewals.length;
    const both = await waitUntil(() => store.renewals.slice(seen).find((r) => r.ids.length === 2), 'a renewal of both rows', 30_000);
    assert.deepEqual(both, { owner: scriptRow.owner, ids: ['script-1', 'task-1'] });
    assert.ok(store.renewals.every((r) => r.owner === scriptRow.owner), 'no second owner renews on this store');

    // Cancelled at another instance (its compare-and-set on the row): the next renewal misses it and its run is stopped here.
    const other = new StoredTasks(store, logger, LEASE_MS);
    assert.deepEqual(await other.cancel('task-1', 'alice', 'cancelled by the client'), { outcome: 'cancelled' });
    await other.close();
    await waitUntil(() => stopped.length > 0 || undefined, 'the held task to be stopped at a renewal', 30_000);
    assert.deepEqual(stopped, ['cancelled by the client']);
    // The script is still renewed (and nothing stops it): renewals go on for it alone.
    const after = store.renewals.length;
    await waitUntil(() => store.renewals.slice(after).find((r) => r.ids.length === 1), 'a renewal of the script alone', 30_000);
    assert.equal((await store.getScript('script-1'))!.state, 'running');
    assert.ok((await store.getScript('script-1'))!.leaseUntil > scriptRow.leaseUntil, 'the script\'s lease moved');
    assert.equal((await store.getScript('task-1'))!.state, 'cancelled');

    // Other terms (a script result kept longer than a task's ttl): another owner, another statement.
    const longer = new StoredScripts(store, MAX_TASK_TTL_MS * 2, logger, LEASE_MS);
    await longer.started({ scriptId: 'script-2', conversationId: 'conv', timeLimit, status: 'running' });
    assert.notEqual((await store.getScript('script-2'))!.owner, scriptRow.owner);
    longer.ended({ scriptId: 'script-2', conversationId: 'conv', timeLimit, status: 'completed', result: { content: [] } }, false);
    await longer.close();
  } finally {
    scripts.ended({ scriptId: 'script-1', conversationId: 'conv', timeLimit, status: 'completed', result: { content: [] } }, false);
    await scripts.close();
    await tasks.close();
  }
});
