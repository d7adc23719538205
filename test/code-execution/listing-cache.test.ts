/**
 * Issue 13: code_execution's description and the host's listing are built once per change of
 * the host's tools and reused — and they change exactly when the tools do (a registration, a
 * removal, a server's re-list after list_changed, a server dying and coming back), never stale.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { makePeer, scratchDir, waitUntil } from '../helpers/peers.ts';

function builtin(host: ToolHost, name: string): void {
  host.registerTool({ name, description: `The ${name} tool`, inputSchema: { type: 'object' }, classes: ['files'], handler: async () => textResult('ok') });
}

const listed = (host: ToolHost, name: string) => host.listTools().some((t) => t.name === name);

test('the description and the listing are built once per registry change and follow register and unregister', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  builtin(host, 'alpha');
  const ce = registerCodeExecution(host, { languages: ['javascript', 'python'] });
  try {
    const first = ce.describe();
    assert.match(first, /"?alpha"?\(/);
    for (let i = 0; i < 5; i++) {
      assert.equal(ce.describe(), first);
      host.listTools();
    }
    assert.equal(ce.builds.description, 1, 'one build for five describe() and five listTools()');
    assert.equal(host.listingBuilds, 1);
    const description = host.listTools().find((t) => t.name === 'code_execution')!.description;
    assert.equal(description, first, 'listTools() carries the same text');

    builtin(host, 'beta');
    assert.match(ce.describe(), /beta\(/, 'a registration shows at once');
    assert.ok(listed(host, 'beta'));
    assert.equal(ce.builds.description, 2);
    assert.equal(host.listingBuilds, 2);

    assert.ok(host.registry.removeHostTool('alpha'));
    assert.doesNotMatch(ce.describe(), /alpha\(/, 'a removal shows at once');
    assert.ok(!listed(host, 'alpha'));
    assert.equal(ce.builds.description, 3);

    host.registry.setOverride('beta', ['web']);
    assert.deepEqual(host.listTools().find((t) => t.name === 'beta')!.classes, ['web'], 'a class override shows at once');
  } finally {
    await ce.close();
    await host.close();
  }
});

test('warm runs reuse the bound tools: no rebuild per run, one after a change', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  builtin(host, 'alpha');
  const ce = registerCodeExecution(host, { languages: ['javascript'] });
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    for (let i = 0; i < 3; i++) {
      const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'return await tools.alpha({})' } });
      assert.equal(outcome.status, 'completed');
      assert.match(JSON.stringify(outcome.result.structuredContent), /"ok":true/);
    }
    assert.equal(ce.builds.bound, 1);
    builtin(host, 'beta');
    const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'return await tools.beta({})' } });
    assert.match(JSON.stringify(outcome.result.structuredContent), /"ok":true/, 'a tool registered between runs is callable at once');
    assert.equal(ce.builds.bound, 2);
  } finally {
    await ce.close();
    await host.close();
  }
});

test("a server's re-list, its death and its return each change the description, never leaving it stale", async () => {
  const peer = makePeer(scratchDir(), 'p', { tools: [{ name: 'run', description: 'Run a command' }] });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const ce = registerCodeExecution(host, { languages: ['javascript'] });
  try {
    const connection = await host.connectServer({ ...peer.config, reconnect: { delayMs: 50 } });
    assert.match(ce.describe(), /"p--run"/);
    const builds = ce.builds.description;

    // list_changed: the host re-lists, and the description follows.
    await connection.request('fixture/control', { op: 'relist', tools: [{ name: 'run', description: 'Run a command' }, { name: 'grep', description: 'Search files' }] });
    await waitUntil(() => host.registry.get('p--grep'), 'the re-list');
    assert.match(ce.describe(), /"p--grep"/);
    assert.ok(listed(host, 'p--grep'));
    assert.equal(ce.builds.description, builds + 1);

    // Death: the server's tools leave the description and the listing.
    const closed = new Promise<void>((resolve) => host.once('server-closed', () => resolve()));
    connection.kill();
    await closed;
    assert.doesNotMatch(ce.describe(), /p--run|p--grep/, 'a dead server is not offered to scripts');
    assert.ok(!listed(host, 'p--run'));

    // Return: back in both, from the new epoch's listing.
    await waitUntil(() => connection.isConnected, 'reconnected');
    assert.match(ce.describe(), /"p--run"/);
    assert.ok(listed(host, 'p--run'));

    // A disconnect removes them for good.
    await host.disconnectServer('p');
    assert.doesNotMatch(ce.describe(), /p--run/);
    assert.ok(!listed(host, 'p--run'));
  } finally {
    await ce.close();
    await host.close();
  }
});
