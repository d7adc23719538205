/**
 * Conversation-wide approval grants shared through the store (src/code-execution/stored-grants.ts,
 * docs/durable.md): two hosts on one memory store and on one SQLite file (PostgreSQL:
 * test/store/grants-postgres.test.ts); a store that fails fails closed, logged; the
 * conversation's end removes its rows for every host.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { scratchDir } from '../helpers/peers.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { SqliteStore } from '../../src/store/sqlite.ts';
import { instance, sharedGrantsScenario } from './shared-grants-rig.ts';

/** A logger whose lines are kept, parsed. */
function capturedLogger() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
    done();
  } });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

test('memory store: a grant at host 1 holds at host 2, another conversation is asked, a revoke at host 2 reaches host 1', async () => {
  const store = new MemoryStore();
  await sharedGrantsScenario(store, store);
});

test('sqlite store: the same with two hosts on one file, each with its own handle', async () => {
  const file = join(scratchDir(), 'grants.db');
  const one = new SqliteStore(file);
  const two = new SqliteStore(file);
  try {
    await sharedGrantsScenario(one, two);
  } finally {
    await one.close();
    await two.close();
  }
});

test('a grant the store cannot keep holds for its run only, logged: the next run asks again', async () => {
  const store = new MemoryStore();
  store.putGrants = async () => {
    throw new Error('disk full');
  };
  const { logger, lines } = capturedLogger();
  const a = instance(store, logger);
  try {
    a.answers.push({ approved: true, scope: 'conversation' });
    assert.match(await a.run('conv'), /done/, 'the approved script ran');
    assert.deepEqual(a.host.approvals.list('conv'), [], 'no conversation grant holds');
    assert.ok(lines.some((l) => l.level === 50 && /could not be stored; it is withdrawn/.test(l.msg)), JSON.stringify(lines));
    assert.match(await a.run('conv'), /^approval declined; nothing ran/);
    assert.equal(a.batches.length, 2, 'asked again');
    assert.deepEqual(a.sent, ['conv']);
  } finally {
    await a.close();
  }
});

test('stored grants that cannot be read hold nowhere, logged: the run asks again', async () => {
  const store = new MemoryStore();
  const { logger, lines } = capturedLogger();
  const a = instance(store, logger);
  try {
    a.answers.push({ approved: true, scope: 'conversation' });
    assert.match(await a.run('conv'), /done/);
    store.loadGrants = async () => {
      throw new Error('connection refused');
    };
    assert.match(await a.run('conv'), /^approval declined; nothing ran/, 'not covered by the grant this host made: it could have been revoked elsewhere');
    assert.equal(a.batches.length, 2);
    assert.deepEqual(a.host.approvals.list('conv'), []);
    assert.ok(lines.some((l) => l.level === 40 && /stored grants could not be read/.test(l.msg)), JSON.stringify(lines));
  } finally {
    await a.close();
  }
});

test('the conversation ending at one host removes its grants from the store: another host asks again', async () => {
  const store = new MemoryStore();
  const a = instance(store);
  const b = instance(store);
  try {
    a.answers.push({ approved: true, scope: 'conversation' });
    assert.match(await a.run('conv'), /done/);
    await a.host.endConversation('conv');
    assert.deepEqual(await store.loadGrants('conv'), []);
    assert.match(await b.run('conv'), /^approval declined; nothing ran/);
    assert.equal(b.batches.length, 1);
  } finally {
    await a.close();
    await b.close();
  }
});
