/**
 * Allowed callers per tool (issue 44, item 4): a tool can be callable directly, from scripts, or
 * both. A script-only tool is absent from the model's listing (and so from every adapter and
 * serve) and refused as a direct call; a direct-only tool is absent from the scripts'
 * declarations and refused from a script; a server's tools take the same setting from its
 * config. Events and the handler's context say who called.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import type { HostToolContext } from '../../src/host/types.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { aiSdkTools } from '../../src/adapters/ai-sdk.ts';
import { makePeer, scratchDir } from '../helpers/peers.ts';

function rig() {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const seen: { tool: string; ctx: HostToolContext }[] = [];
  for (const [name, callers] of [['lookup', 'script'], ['deploy', 'model'], ['echo', undefined]] as const) {
    host.registerTool({
      name,
      description: `The ${name} tool`,
      inputSchema: { type: 'object' },
      ...(callers ? { callers } : {}),
      handler: async (_args, ctx) => {
        seen.push({ tool: name, ctx });
        return textResult(`${name} ran`);
      },
    });
  }
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  const ce = registerCodeExecution(host, {});
  return { host, ce, seen, events, close: async () => { await ce.close(); await host.close(); } };
}

async function script(host: ToolHost, code: string) {
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const out = await host.dispatch({ inferenceId, name: 'code_execution', input: { code } });
  return (out.result!.structuredContent as { value?: unknown; ok: boolean });
}

test("a script-only tool is left out of the model's listing and the adapters, refused directly, and runs from a script", async () => {
  const r = rig();
  try {
    const listed = r.host.listTools().map((t) => t.name);
    assert.ok(!listed.includes('lookup'), listed.join());
    assert.ok(listed.includes('deploy') && listed.includes('echo'));
    assert.ok(!('lookup' in aiSdkTools(r.host, { conversationId: 'c' })));
    const direct = await r.host.dispatch({ inferenceId: r.host.beginInference({ conversationId: 'c' }), name: 'lookup', input: {} });
    assert.equal(direct.status, 'refused');
    assert.equal(direct.refusal?.code, 'caller_not_allowed');
    assert.match(JSON.stringify(direct.result), /only be called from a script/);
    const description = r.host.listTools().find((t) => t.name === 'code_execution')!.description;
    assert.match(description, /lookup/);
    const env = await script(r.host, 'return await tools.lookup({})');
    assert.deepEqual(env.value, 'lookup ran');
    assert.equal(r.seen.length, 1);
  } finally {
    await r.close();
  }
});

test('a direct-only tool is left out of the declarations and refused from a script', async () => {
  const r = rig();
  try {
    const description = r.host.listTools().find((t) => t.name === 'code_execution')!.description;
    assert.doesNotMatch(description, /deploy\(/);
    const env = await script(r.host, 'try { await tools.deploy({}); return "ran" } catch (e) { return String(e.message) }');
    assert.match(String(env.value), /deploy/);
    assert.equal(r.seen.filter((s) => s.tool === 'deploy').length, 0);
    const direct = await r.host.dispatch({ inferenceId: r.host.beginInference({ conversationId: 'c' }), name: 'deploy', input: {} });
    assert.equal(direct.status, 'completed');
  } finally {
    await r.close();
  }
});

test("events and the handler's context say who called, with the script's parent id", async () => {
  const r = rig();
  try {
    const inferenceId = r.host.beginInference({ conversationId: 'c' });
    await r.host.dispatch({ inferenceId, name: 'echo', input: {}, modelCallId: 'm1' });
    const out = await r.host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'return await tools.echo({})' }, modelCallId: 'm2' });
    assert.equal(out.status, 'completed');
    const [direct, inner] = r.seen;
    assert.equal(direct!.ctx.origin, 'model');
    assert.equal(direct!.ctx.parentToolCallId, undefined);
    assert.equal(inner!.ctx.origin, 'script');
    assert.equal(inner!.ctx.parentToolCallId, out.toolCallId);
    const started = r.events.filter((e) => e.phase === 'started' && e.tool === 'echo');
    assert.deepEqual(started.map((e) => [e.origin, e.parentToolCallId]), [['model', undefined], ['script', out.toolCallId]]);
  } finally {
    await r.close();
  }
});

test("a server's config sets its tools' callers by name, '*' for the rest; a bad value is refused up front", async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const dir = scratchDir('toolcell-callers-');
  const peer = makePeer(dir, 'x', { tools: [{ name: 'search', description: 'Search' }, { name: 'send', description: 'Send' }, { name: 'read', description: 'Read' }] });
  try {
    await assert.rejects(host.connectServer({ ...peer.config, callers: { search: 'scripts' as 'script' } }), /callers\.search: expected "both", "model" or "script"/);
    await host.connectServer({ ...peer.config, callers: { search: 'script', send: 'model', '*': 'both' } });
    const listed = host.listTools().map((t) => t.name);
    assert.deepEqual(listed.filter((n) => n.startsWith('x--')).sort(), ['x--read', 'x--send']);
    const refused = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'x--search', input: {} });
    assert.equal(refused.refusal?.code, 'caller_not_allowed');
    assert.equal(host.registry.get('x--send')?.scriptCallable, false);
  } finally {
    await host.close();
  }
});
