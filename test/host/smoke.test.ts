import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { makePeer, observePolicy, scratchDir } from '../helpers/peers.ts';

test('a built-in call and a server call reach an observer as started → completed', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const observer = makePeer(dir, 'obs', { observer: true, policy: observePolicy(['shell']), filter: { rules: [{ match: {}, input: true }] } });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'echo', description: 'Echo', inputSchema: { type: 'object' }, classes: ['shell'], handler: async (a) => textResult(JSON.stringify(a)) });
  try {
    await host.connectServer(provider.config);
    await host.connectServer(observer.config);
    await observer.waitFor((e) => e.some((x) => x.event === 'observe-response'), 'filter set');
    const stream = host.openStream('conv_1');
    const inferenceId = stream.beginInference();
    const a = await host.dispatch({ inferenceId, modelCallId: 'call_0', name: 'echo', input: { a: 1 } });
    const b = await host.dispatch({ inferenceId, modelCallId: 'call_0', name: 'x--run', input: { b: 2 } });
    assert.equal(a.status, 'completed');
    assert.equal(b.status, 'completed');
    const events = await observer.waitFor((e) => e.filter((x) => x.event === 'lifecycle').length === 4, 'four lifecycle events');
    const life = events.filter((x) => x.event === 'lifecycle').map((x) => x.params);
    assert.deepEqual(life.map((p) => [p.tool, p.phase]), [['echo', 'started'], ['echo', 'completed'], ['x--run', 'started'], ['x--run', 'completed']]);
    assert.deepEqual(life[0].input, { a: 1 });
    assert.equal(life[2].serverId, 'x');
    assert.equal(life[2].serverTool, 'run');
    assert.notEqual(life[0].toolCallId, life[2].toolCallId);
  } finally {
    await host.close();
  }
});
