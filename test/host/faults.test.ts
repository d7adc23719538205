/**
 * Bad input and failing peers: garbage on stdout, a crash mid-call, an observer that never
 * reads, an observer that exits. The host must keep serving everyone else and never wait.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { makePeer, observePolicy, scratchDir, waitUntil } from '../helpers/peers.ts';

const silent = () => pino({ level: 'silent' });
const phasesOf = (events: any[], tool: string) => events.filter((p) => p.tool === tool).map((p) => p.phase);

test('garbage lines on a server stdout are logged and skipped; the call still completes', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const host = new ToolHost({ logger: silent() });
  const diagnostics: string[] = [];
  host.on('diagnostic', (d) => diagnostics.push(d.code));
  try {
    await host.connectServer(provider.config);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'x--run', input: { garbage_before: true } });
    assert.equal(outcome.status, 'completed');
    assert.ok(diagnostics.includes('garbage-line'), 'the garbage line was reported');
    const again = await host.dispatch({ inferenceId, name: 'x--run', input: {} });
    assert.equal(again.status, 'completed', 'the connection survived');
  } finally {
    await host.close();
  }
});

test('a server crashing mid-call ends that call failed; other servers and built-ins keep working', async () => {
  const dir = scratchDir();
  const crashy = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const healthy = makePeer(dir, 'y', { tools: [{ name: 'go', classes: ['web'] }] });
  const observer = makePeer(dir, 'obs', { observer: true, policy: observePolicy() });
  const host = new ToolHost({ logger: silent() });
  host.registerTool({ name: 'echo', description: 'e', inputSchema: { type: 'object' }, classes: ['shell'], handler: async () => textResult('ok') });
  try {
    await host.connectServer(crashy.config);
    await host.connectServer(healthy.config);
    await host.connectServer(observer.config);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const crashed = await host.dispatch({ inferenceId, name: 'x--run', input: { crash: true } });
    assert.equal(crashed.status, 'failed');
    assert.equal(crashed.result.isError, true);
    const other = await host.dispatch({ inferenceId, name: 'y--go', input: {} });
    assert.equal(other.status, 'completed');
    const builtin = await host.dispatch({ inferenceId, name: 'echo', input: {} });
    assert.equal(builtin.status, 'completed');
    const refused = await host.dispatch({ inferenceId, name: 'x--run', input: {} });
    assert.equal(refused.status, 'refused', 'a vanished server is a refusal');
    assert.equal(refused.refusal?.code, 'server_unavailable');
    await observer.waitFor((e) => e.filter((x) => x.event === 'lifecycle').length >= 6, 'six lifecycle events');
    const life = observer.lifecycle();
    assert.deepEqual(phasesOf(life, 'x--run'), ['started', 'failed'], 'the refused call sent nothing');
    assert.deepEqual(phasesOf(life, 'y--go'), ['started', 'completed']);
    assert.deepEqual(phasesOf(life, 'echo'), ['started', 'completed']);
  } finally {
    await host.close();
  }
});

test('an observer that never reads its stdin costs bounded memory and never slows dispatch', async () => {
  const dir = scratchDir();
  const stuck = makePeer(dir, 'stuck', { observer: true, stall: true, policy: observePolicy(), log: false });
  const host = new ToolHost({ logger: silent() });
  host.registerTool({ name: 'noop', description: 'n', inputSchema: { type: 'object' }, classes: ['shell'], handler: async () => textResult('') });
  try {
    const connection = await host.connectServer({ ...stuck.config, maxQueuedNotifications: 100 });
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const padding = 'p'.repeat(2000);
    const calls = 3000;
    for (let i = 0; i < calls; i++) {
      // A long conversation id makes every notification large, so the pipe fills quickly.
      const outcome = await host.dispatch({ inferenceId, name: 'noop', input: { i, padding } });
      assert.equal(outcome.status, 'completed');
    }
    const stats = connection.queue.stats;
    assert.ok(stats.droppedCalls > 0, `calls were dropped for the stuck observer (${JSON.stringify(stats)})`);
    // Terminals of accepted openings may exceed the cap, but never by more than one per accepted call.
    assert.ok(stats.highWater <= 200, `queue stayed bounded (${stats.highWater})`);
  } finally {
    await host.close();
  }
});

test('an observer that exits is dropped; the host and the other observers carry on', async () => {
  const dir = scratchDir();
  const leaving = makePeer(dir, 'leaving', { observer: true, policy: observePolicy() });
  const staying = makePeer(dir, 'staying', { observer: true, policy: observePolicy() });
  const host = new ToolHost({ logger: silent() });
  host.registerTool({ name: 'echo', description: 'e', inputSchema: { type: 'object' }, classes: ['shell'], handler: async () => textResult('ok') });
  const closed: string[] = [];
  host.on('server-closed', (info) => closed.push(info.serverId));
  try {
    const gone = await host.connectServer(leaving.config);
    await host.connectServer(staying.config);
    await gone.request('fixture/control', { op: 'disconnect' });
    await waitUntil(() => closed.includes('leaving'), 'the observer exit was noticed');
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'echo', input: {} });
    assert.equal(outcome.status, 'completed');
    await staying.waitFor((e) => e.filter((x) => x.event === 'lifecycle').length === 2, 'the remaining observer heard the call');
  } finally {
    await host.close();
  }
});

test('a malformed tools/observe is -32602 and the previous filter stays in force', async () => {
  const dir = scratchDir();
  const observer = makePeer(dir, 'obs', { observer: true, policy: observePolicy() });
  const host = new ToolHost({ logger: silent() });
  host.registerTool({ name: 'a--x', description: 'a', inputSchema: { type: 'object' }, classes: ['shell'], handler: async () => textResult('') });
  host.registerTool({ name: 'b--y', description: 'b', inputSchema: { type: 'object' }, classes: ['shell'], handler: async () => textResult('') });
  try {
    const connection = await host.connectServer(observer.config);
    const good = (await connection.request('fixture/control', { op: 'observe', params: { rules: [{ match: { tool: 'b--*' } }] } })) as any;
    assert.deepEqual(good.response.result, {});
    for (const bad of [{ rules: [{ match: { module: 'x' } }] }, { ruless: [] }, { rules: [{ match: {}, report: 'no' }] }, { rules: [{ match: {}, input: [''] }] }]) {
      const reply = (await connection.request('fixture/control', { op: 'observe', params: bad })) as any;
      assert.equal(reply.response.error?.code, -32602, JSON.stringify(bad));
    }
    const inferenceId = host.beginInference({ conversationId: 'c' });
    await host.dispatch({ inferenceId, name: 'a--x', input: {} });
    await host.dispatch({ inferenceId, name: 'b--y', input: {} });
    await host.flush();
    await connection.request('fixture/barrier');
    assert.deepEqual([...new Set(observer.lifecycle().map((p) => p.tool))], ['b--y'], 'only the filtered tool was reported');
  } finally {
    await host.close();
  }
});

test('a server configured to reconnect comes back after a crash as a new epoch', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const host = new ToolHost({ logger: silent() });
  const codes: string[] = [];
  host.on('diagnostic', (d) => codes.push(d.code));
  try {
    const connection = await host.connectServer({ ...provider.config, reconnect: { delayMs: 20 } });
    const inferenceId = host.beginInference({ conversationId: 'c' });
    assert.equal((await host.dispatch({ inferenceId, name: 'x--run', input: { crash: true } })).status, 'failed');
    await waitUntil(() => codes.includes('reconnected'), 'the server reconnected');
    assert.equal(connection.epoch, 2);
    const after = await host.dispatch({ inferenceId, name: 'x--run', input: {} });
    assert.equal(after.status, 'completed');
    assert.ok(!codes.includes('reconnect-failed'));
  } finally {
    await host.close();
  }
});
