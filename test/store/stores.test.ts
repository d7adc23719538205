/**
 * The store contract (src/store/types.ts) for the in-process and SQLite stores: a run is taken
 * at most once however many takers race, an expired or unknown run is not handed out, and the
 * bound on paused runs holds. PostgreSQL runs the same contract in postgres.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { scratchDir } from '../helpers/peers.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { SqliteStore } from '../../src/store/sqlite.ts';
import { openStore } from '../../src/store/open.ts';
import { StoreConfigError, StoreFullError, type DurableStore } from '../../src/store/types.ts';

/** The contract every store keeps; `make(maxRuns)` opens a fresh, empty one. */
export async function storeContract(make: (maxRuns: number) => Promise<DurableStore>): Promise<void> {
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

test('memory store: the contract', async () => {
  await storeContract(async (max) => new MemoryStore(max));
});

test('sqlite store: the contract, and two handles on one file take a run once', async () => {
  const dir = scratchDir();
  await storeContract(async (max) => new SqliteStore(join(dir, 'a.db'), max));
  const one = new SqliteStore(join(dir, 'b.db'));
  const two = new SqliteStore(join(dir, 'b.db'));
  try {
    await one.putRun({ id: 'r', binding: 'b', data: '{}', expiresAt: Date.now() + 60_000 });
    const [a, b] = await Promise.all([one.claimRun('r', 'one'), two.claimRun('r', 'two')]);
    assert.equal([a, b].filter((o) => o.claimed).length, 1);
  } finally {
    await one.close();
    await two.close();
  }
});

test('openStore: URLs by kind; an unknown one is refused with what is expected', async () => {
  const dir = scratchDir();
  const sqlite = await openStore('sqlite:./c.db', dir);
  assert.equal(sqlite.kind, 'sqlite');
  await sqlite.close();
  assert.equal((await openStore('memory:')).kind, 'memory');
  await assert.rejects(openStore('redis://x'), (e: unknown) => e instanceof StoreConfigError && /expected "sqlite:<file>", "postgres:\/\/…"/.test((e as Error).message));
});
