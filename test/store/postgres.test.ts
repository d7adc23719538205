/**
 * The PostgreSQL store on a real server (test/store/pg-cluster.ts): the store contract, and the
 * acceptance test of issue 43 — two `toolcell serve --http` processes on one database; a script
 * started through instance 1 makes three counted calls and asks for a just-in-time approval;
 * instance 1 is SIGKILLed; the client approves through instance 2 and gets the script's
 * result; each counted call ran exactly once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePeer, scratchDir } from '../helpers/peers.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import { startPgCluster } from './pg-cluster.ts';
import { storeContract } from './store-contract.ts';
import { post, startServe } from './serve-process.ts';

const JS_SCRIPT = `
const seen = [];
for (let i = 1; i <= 3; i++) seen.push((await tools.x__count({ i })).args.i);
const name = ['x', 'send'].join('__');
const sent = await tools[name]({ to: 'ada', after: seen });
return { seen, sent: sent.args };
`;

test('postgres store: the contract, with takers on two pools', async () => {
  const cluster = await startPgCluster();
  try {
    let n = 0;
    await storeContract(async (max) => {
      const store = new PostgresStore(cluster.url, max);
      // A fresh table for the contract's counts.
      if (n++ === 0) await (store as unknown as { pool: import('pg').Pool }).pool.query('DROP TABLE IF EXISTS toolcell_runs');
      return store;
    });
    const one = new PostgresStore(cluster.url);
    const two = new PostgresStore(cluster.url);
    try {
      await one.putRun({ id: 'r', binding: 'b', data: '{}', expiresAt: Date.now() + 60_000 });
      const outcomes = await Promise.all([...Array.from({ length: 5 }, () => one.claimRun('r', 'one')), ...Array.from({ length: 5 }, () => two.claimRun('r', 'two'))]);
      assert.equal(outcomes.filter((o) => o.claimed).length, 1);
    } finally {
      await one.close();
      await two.close();
    }
  } finally {
    await cluster.stop();
  }
});

test('postgres store: two serve instances on one database; instance 1 SIGKILLed while its run waits for approval; instance 2 resumes it; each call ran once', async () => {
  const cluster = await startPgCluster();
  const dir = scratchDir();
  const peer = makePeer(dir, 'x', { tools: [{ name: 'count', classes: ['read'] }, { name: 'send', classes: ['comms'] }] });
  const calls = (name: string) => peer.events().filter((e) => e.event === 'call' && e.params?.name === name);
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({ servers: [peer.config], codeExecution: { languages: ['javascript'] }, approvals: { classes: ['comms'] }, store: cluster.url }));
  const one = await startServe(configPath);
  const two = await startServe(configPath);
  try {
    const call = { name: 'code_execution', arguments: { code: JS_SCRIPT } };
    const first = await post(one.url, 'tools/call', call);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const [key] = Object.keys(first.result.inputRequests);
    assert.equal(calls('count').length, 3);
    assert.equal(calls('send').length, 0);
    await one.kill('SIGKILL');
    const done = await post(two.url, 'tools/call', { ...call, inputResponses: { [key!]: { action: 'accept', content: {} } }, requestState: first.result.requestState });
    assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
    assert.ok(!done.result.isError, JSON.stringify(done.result));
    assert.deepEqual(done.result.structuredContent.value, { seen: [1, 2, 3], sent: { to: 'ada', after: [1, 2, 3] } });
    assert.deepEqual(calls('count').map((c) => c.params.arguments.i), [1, 2, 3], 'each counted call ran exactly once');
    assert.equal(calls('send').length, 1);
  } finally {
    await one.kill('SIGTERM');
    await two.kill('SIGTERM');
    await cluster.stop();
  }
});
