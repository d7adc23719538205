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
import { makePeer, observePolicy, scratchDir, waitUntil, type Peer } from '../helpers/peers.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import { startPgCluster } from './pg-cluster.ts';
import { grantsContract, scriptsContract, shapesContract, storeContract } from './store-contract.ts';
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
    await shapesContract(async (max, shapes) => {
      const store = new PostgresStore(cluster.url, max, shapes);
      await (store as unknown as { pool: import('pg').Pool }).pool.query('DROP TABLE IF EXISTS toolcell_shapes');
      return store;
    });
    await scriptsContract(async (max) => {
      const store = new PostgresStore(cluster.url, undefined, undefined, max);
      await (store as unknown as { pool: import('pg').Pool }).pool.query('DROP TABLE IF EXISTS toolcell_scripts');
      return store;
    });
    await grantsContract(async (max, perConversation) => {
      const store = new PostgresStore(cluster.url, undefined, undefined, undefined, max, perConversation);
      await (store as unknown as { pool: import('pg').Pool }).pool.query('DROP TABLE IF EXISTS toolcell_grants');
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

/**
 * Each call an observer saw, checked paired: it opens (pending or started), ends with exactly
 * one terminal, and nothing follows the terminal. Returns the phases by toolCallId.
 */
export function pairedCalls(observer: Peer): Map<string, { tool: string; phases: string[]; meta: any }> {
  const calls = new Map<string, { tool: string; phases: string[]; meta: any }>();
  for (const event of observer.lifecycle()) {
    const entry = calls.get(event.toolCallId) ?? { tool: event.tool, phases: [] as string[], meta: event._meta };
    entry.phases.push(event.phase);
    calls.set(event.toolCallId, entry);
  }
  for (const [id, { tool, phases }] of calls) {
    const terminals = phases.filter((p) => p === 'completed' || p === 'failed' || p === 'aborted');
    assert.ok(phases[0] === 'pending' || phases[0] === 'started', `${tool} ${id} has no opening: ${phases.join(',')}`);
    assert.equal(terminals.length, 1, `${tool} ${id} has ${terminals.length} terminals: ${phases.join(',')}`);
    assert.equal(terminals[0], phases[phases.length - 1], `${tool} ${id}: something after its terminal: ${phases.join(',')}`);
  }
  return calls;
}

test('postgres store: two serve instances on one database; instance 1 SIGKILLed while its run waits for approval; instance 2 resumes it; each call ran once', async () => {
  const cluster = await startPgCluster();
  const dir = scratchDir();
  const peer = makePeer(dir, 'x', { tools: [{ name: 'count', classes: ['read'] }, { name: 'send', classes: ['comms'] }] });
  const calls = (name: string) => peer.events().filter((e) => e.event === 'call' && e.params?.name === name);
  // Each instance has its own observer process: what each connection saw is checked apart.
  const observers = [makePeer(dir, 'obs1', { observer: true, policy: observePolicy() }), makePeer(dir, 'obs2', { observer: true, policy: observePolicy() })];
  const configs = observers.map((observer, i) => {
    const path = join(dir, `toolcell-${i + 1}.json`);
    writeFileSync(path, JSON.stringify({ servers: [peer.config, observer.config], codeExecution: { languages: ['javascript'] }, approvals: { classes: ['comms'] }, store: cluster.url }));
    return path;
  });
  const one = await startServe(configs[0]!);
  const two = await startServe(configs[1]!);
  try {
    const call = { name: 'code_execution', arguments: { code: JS_SCRIPT } };
    const first = await post(one.url, 'tools/call', call);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const [key] = Object.keys(first.result.inputRequests);
    assert.equal(calls('count').length, 3);
    assert.equal(calls('send').length, 0);
    // The pause ended the run at instance 1: its observer hears code_execution's terminal (the crash comes after it).
    const ceOne: any[] = await waitUntil<any[]>(() => {
      const ce = observers[0]!.lifecycle().filter((e) => e.tool === 'code_execution');
      return ce.some((e) => e.phase === 'aborted') ? ce : undefined;
    }, 'instance 1 ending its paused run on its observer', 30_000);
    await one.kill('SIGKILL');
    const done = await post(two.url, 'tools/call', { ...call, inputResponses: { [key!]: { action: 'accept', content: {} } }, requestState: first.result.requestState });
    assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
    assert.ok(!done.result.isError, JSON.stringify(done.result));
    assert.deepEqual(done.result.structuredContent.value, { seen: [1, 2, 3], sent: { to: 'ada', after: [1, 2, 3] } });
    assert.deepEqual(calls('count').map((c) => c.params.arguments.i), [1, 2, 3], 'each counted call ran exactly once');
    assert.equal(calls('send').length, 1);

    // Observers: no connection saw an opening without its terminal or a terminal without its opening.
    const id = ceOne[0].toolCallId;
    await waitUntil(() => observers[1]!.lifecycle().some((e) => e.tool === 'code_execution' && e.phase === 'completed'), 'instance 2 ending the resumed run on its observer', 30_000);
    const seenOne = pairedCalls(observers[0]!);
    const seenTwo = pairedCalls(observers[1]!);
    assert.deepEqual([...seenOne.values()].map((c) => `${c.tool}:${c.phases.join('>')}`), [
      'code_execution:started>aborted',
      'x--count:started>completed',
      'x--count:started>completed',
      'x--count:started>completed',
      'x--send:pending>aborted',
    ]);
    // Instance 2: the resumed code_execution under the same id, marked; the replayed calls not announced again.
    assert.deepEqual([...seenTwo.values()].map((c) => `${c.tool}:${c.phases.join('>')}`), ['code_execution:started>completed', 'x--send:pending>started>completed']);
    assert.equal([...seenTwo.keys()][0], id, 'the resumed call keeps its toolCallId');
    assert.equal(seenTwo.get(id)!.meta?.['toolcell/resumed'], true);
    assert.equal(seenOne.get(id)!.meta?.['toolcell/resumed'], undefined);
  } finally {
    await one.kill('SIGTERM');
    await two.kill('SIGTERM');
    await cluster.stop();
  }
});
