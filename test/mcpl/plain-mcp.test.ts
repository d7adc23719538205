/**
 * A server that advertises no `experimental.mcpl` is plain MCP even when the operator's
 * policy would grant it lifecycle paths: no `featureSets/update`, no `tools/lifecycle`, and a
 * `tools/observe` it sends anyway is answered "method not found". The operator hears once
 * that the grant had no effect.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { makePeer, observePolicy, scratchDir } from '../helpers/peers.ts';
import { registerWaitTool } from '../helpers/tools.ts';

test('a plain MCP peer granted observe gets no policy exchange, no lifecycle, and -32601 for tools/observe', async () => {
  const dir = scratchDir();
  const plain = makePeer(dir, 'plain', { plain: true, policy: observePolicy(), tools: [{ name: 'run' }] });
  const mcpl = makePeer(dir, 'obs', { observer: true, policy: observePolicy() });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const releases = registerWaitTool(host);
  const diagnostics: { code: string; message: string }[] = [];
  host.on('diagnostic', (d) => diagnostics.push(d));
  try {
    const connection = await host.connectServer(plain.config);
    await host.connectServer(mcpl.config);
    assert.equal(connection.speaksMcpl, false);
    assert.equal(connection.lifecycleState(), null);
    assert.deepEqual(connection.grantedPaths, []);
    assert.deepEqual(diagnostics.filter((d) => d.code === 'plain-mcp').map((d) => d.message), [
      'plain did not advertise experimental.mcpl: it is a plain MCP provider and toolLifecycle.observe has no effect',
    ]);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const wait = host.dispatch({ inferenceId, name: 'wait', input: {} });
    releases[0]!();
    assert.equal((await wait).status, 'completed');
    assert.equal((await host.dispatch({ inferenceId, name: 'plain--run', input: {} })).status, 'completed');
    await host.flush();
    // The MCPL observer heard of both calls; the plain one heard of none and was never sent a policy.
    await mcpl.waitFor((e) => e.filter((x) => x.event === 'lifecycle' && x.params.phase === 'completed').length === 2, 'observer saw both');
    const reply = (await connection.request('fixture/control', { op: 'observe', params: { rules: [] } })) as any;
    assert.equal(reply.response.error?.code, -32601);
    await connection.request('fixture/barrier');
    const events = plain.events();
    assert.ok(!events.some((e) => e.event === 'policy' || e.event === 'lifecycle'), JSON.stringify(events.map((e) => e.event)));
    // A grant change is stored but changes nothing on the wire.
    await connection.setPolicy({ enabledCapabilities: ['tools'] });
    await connection.request('fixture/barrier');
    assert.ok(!plain.events().some((e) => e.event === 'policy'));
  } finally {
    await host.close();
  }
});
