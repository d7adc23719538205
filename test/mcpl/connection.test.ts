/** MCPL connection behaviour against a real peer process: handshake, unknown methods, reconnect epochs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { makePeer, observePolicy, scratchDir } from '../helpers/peers.ts';
import { registerWaitTool } from '../helpers/tools.ts';

const silent = () => pino({ level: 'silent' });

test('the handshake offers experimental.mcpl on the current MCP version (2025-11-25) and sends the initial policy as a request', async () => {
  const dir = scratchDir();
  const peer = makePeer(dir, 'obs', { observer: true, policy: observePolicy() });
  const host = new ToolHost({ logger: silent() });
  try {
    const connection = await host.connectServer(peer.config);
    assert.equal(connection.protocolVersion, '2025-11-25');
    const events = peer.events();
    const init = events.find((e) => e.event === 'initialized') as any;
    assert.equal(init.capabilities.experimental.mcpl.version, '0.5');
    assert.deepEqual(init.capabilities.experimental.mcpl.toolLifecycle, { observe: true, inputs: true });
    const policy = events.find((e) => e.event === 'policy')!;
    assert.deepEqual(policy.params.effectiveCapabilities, ['tools', 'toolLifecycle.observe']);
    assert.ok(events.indexOf(init) < events.indexOf(policy), 'policy follows initialization');
  } finally {
    await host.close();
  }
});

test('an unknown inbound method is answered -32601; the connection keeps working', async () => {
  const dir = scratchDir();
  const peer = makePeer(dir, 'obs', { observer: true, policy: observePolicy() });
  const host = new ToolHost({ logger: silent() });
  try {
    const connection = await host.connectServer(peer.config);
    for (const method of ['nonsense/method', 'tools/lifecycle']) {
      const reply = (await connection.request('fixture/control', { op: 'request', method, params: {} })) as any;
      assert.equal(reply.response.error?.code, -32601, method);
    }
    const ok = (await connection.request('fixture/control', { op: 'observe', params: { rules: [] } })) as any;
    assert.deepEqual(ok.response.result, {});
  } finally {
    await host.close();
  }
});

test('a reconnect starts a new epoch: terminals of calls opened before never reach the new transport', async () => {
  const dir = scratchDir();
  const peer = makePeer(dir, 'obs', { observer: true, policy: observePolicy(), filter: { rules: [{ match: { tool: 'wait' } }] } });
  const host = new ToolHost({ logger: silent() });
  const releases = registerWaitTool(host);
  try {
    const connection = await host.connectServer(peer.config);
    await peer.waitFor((e) => e.some((x) => x.event === 'observe-response'), 'filter');
    assert.equal(connection.epoch, 1);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const pending = host.dispatch({ inferenceId, name: 'wait', input: {} });
    await peer.waitFor((e) => e.some((x) => x.event === 'lifecycle' && x.params.phase === 'started'), 'started on epoch 1');
    const before = peer.lifecycle().length;
    // The peer writes to the same log file after the reconnect; the new process re-sends its filter.
    await connection.reconnect();
    assert.equal(connection.epoch, 2);
    releases[0]!();
    assert.equal((await pending).status, 'completed');
    await host.flush();
    await connection.request('fixture/barrier');
    const after = peer.lifecycle().slice(before);
    assert.ok(!after.some((p) => p.tool === 'wait'), 'no terminal for the epoch-1 call on epoch 2');
    // The new process had to send its filter again: filters are per transport.
    await peer.waitFor((e) => e.filter((x) => x.event === 'observe-response').length === 2, 'filter re-sent on epoch 2');
  } finally {
    await host.close();
  }
});
