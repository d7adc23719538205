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
import { StoreConfigError } from '../../src/store/types.ts';
import { grantsContract, scriptsContract, shapesContract, storeContract } from './store-contract.ts';

test('memory store: the contract', async () => {
  await storeContract(async (max) => new MemoryStore(max));
  await shapesContract(async (max, shapes) => new MemoryStore(max, shapes));
  await scriptsContract(async (max) => new MemoryStore(undefined, undefined, max));
  await grantsContract(async (max, perConversation) => new MemoryStore(undefined, undefined, undefined, max, perConversation));
});

test('sqlite store: the contract, and two handles on one file take a run once', async () => {
  const dir = scratchDir();
  await storeContract(async (max) => new SqliteStore(join(dir, 'a.db'), max));
  await shapesContract(async (max, shapes) => new SqliteStore(join(dir, 'shapes.db'), max, shapes));
  await scriptsContract(async (max) => new SqliteStore(join(dir, 'scripts.db'), undefined, undefined, max));
  await grantsContract(async (max, perConversation) => new SqliteStore(join(dir, 'grants.db'), undefined, undefined, undefined, max, perConversation));
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
