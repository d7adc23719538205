/**
 * toolcell/anthropic in the Anthropic SDK's own tool runner (`client.beta.messages.toolRunner`),
 * with the client's `fetch` replaced by a scripted Messages API: the first reply is a
 * `tool_use` of code_execution whose script calls two tools of a real MCP server process, the
 * next a final text. A real observer process sees both inner calls under the reply's `tool_use`
 * id as parent, in its inference; the runner hands the script's result back in a `tool_result`
 * for that id. Also: calls of one reply share an inference, error and image results, an abort of
 * the runner reaching the running call, names the API accepts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import Anthropic from '@anthropic-ai/sdk';
import { ToolHost } from '../../src/host/tool-host.ts';
import { anthropicToolSource, anthropicTools, toAnthropicContent } from '../../src/adapters/anthropic.ts';
import { anthropicToolName, distinctFunctionNames } from '../../src/adapters/function-names.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { adapterRig } from './rig.ts';

/** A `toolu_` id of 20+ random characters: the host reuses it as the call's toolCallId. */
const CE_CALL = 'toolu_01AnthropicCodeExecution';

type Block = Record<string, unknown>;
interface SentRequest {
  messages: Array<{ role: string; content: string | Block[] }>;
  tools: Array<{ name: string }>;
}

/**
 * A stand-in for the Messages API: each request gets the next reply of `replies` (a function of
 * the request, for replies that depend on what was sent); every request body is kept.
 */
function scriptedApi(replies: Array<Block[] | ((request: SentRequest) => Block[])>): { client: Anthropic; requests: SentRequest[] } {
  const requests: SentRequest[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    assert.match(String(url), /\/v1\/messages$/);
    init?.signal?.throwIfAborted();
    const request = JSON.parse(String(init?.body)) as SentRequest;
    requests.push(request);
    const next = replies[requests.length - 1];
    assert.ok(next !== undefined, `request ${requests.length} has no scripted reply`);
    const content = typeof next === 'function' ? next(request) : next;
    const message = {
      id: `msg_${requests.length}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content,
      stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    return new Response(JSON.stringify(message), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { client: new Anthropic({ apiKey: 'test-key', fetch, maxRetries: 0 }), requests };
}

const toolUse = (id: string, name: string, input: unknown): Block => ({ type: 'tool_use', id, name, input });
const text = (t: string): Block => ({ type: 'text', text: t });
/** The tool_result blocks of a request's last message. */
const toolResults = (request: SentRequest): Block[] => {
  const last = request.messages.at(-1)!;
  return Array.isArray(last.content) ? last.content.filter((b) => b.type === 'tool_result') : [];
};

test('toolRunner: a code_execution script calls two server tools; the observer process sees both under the tool_use id', async () => {
  const rig = await adapterRig(['lookup', 'search']);
  try {
    const script = 'const a = await tools.srv__lookup({ q: 7 }); const b = await tools.srv__search({ q: "x" }); return [a.tool, b.tool].join(" + ");';
    const { client, requests } = scriptedApi([[text('Running a script.'), toolUse(CE_CALL, 'code_execution', { code: script })], [text('done')]]);
    const tools = anthropicTools(rig.host, { conversationId: 'conv-anthropic' });
    assert.ok(tools.some((t) => t.name === 'srv--lookup'), `names: ${tools.map((t) => t.name).join(', ')}`);

    const final = await client.beta.messages.toolRunner({ model: 'claude-test', max_tokens: 256, messages: [{ role: 'user', content: 'go' }], tools });
    assert.deepEqual(final.content, [{ type: 'text', text: 'done' }]);

    // The API was offered every host tool, and got the script's result for the model's call.
    assert.deepEqual(requests[0]!.tools.map((t) => t.name).sort(), ['code_execution', 'result_page', 'srv--lookup', 'srv--search']);
    const [result] = toolResults(requests[1]!);
    assert.equal(result?.tool_use_id, CE_CALL);
    assert.equal(result?.is_error, undefined);
    assert.match(JSON.stringify(result?.content), /srv--lookup \+ srv--search|lookup \+ search/);

    // The observer process: code_execution under the tool_use id, both inner calls under it as
    // parent, in the same inference and conversation, completed.
    await rig.host.flush();
    await rig.observer.waitFor((e) => e.filter((x) => x.event === 'lifecycle' && x.params.phase !== 'started').length >= 3, 'the three calls ended at the observer');
    const seen = rig.observer.lifecycle();
    const parent = seen.find((p) => p.tool === 'code_execution' && p.phase === 'started');
    assert.equal(parent?.toolCallId, CE_CALL);
    assert.equal(parent?.conversationId, 'conv-anthropic');
    const inner = seen.filter((p) => p.tool.startsWith('srv--') && p.phase === 'started');
    assert.deepEqual(inner.map((p) => p.tool).sort(), ['srv--lookup', 'srv--search']);
    for (const call of inner) {
      assert.equal(call._meta?.['agent-framework/parentToolCallId'], CE_CALL);
      assert.equal(call.inferenceId, parent?.inferenceId);
      assert.equal(call.conversationId, 'conv-anthropic');
    }
    assert.deepEqual(seen.filter((p) => p.phase !== 'started').map((p) => [p.tool, p.phase]).sort(), [
      ['code_execution', 'completed'],
      ['srv--lookup', 'completed'],
      ['srv--search', 'completed'],
    ]);
    assert.equal(rig.events.find((e) => e.tool === 'code_execution' && e.phase === 'started')?.modelCallId, CE_CALL);
    await rig.server.waitFor((e) => e.filter((x) => x.event === 'call').length >= 2, 'the server saw both calls');
  } finally {
    await rig.close();
  }
});

test('calls of one reply share an inference; the next reply gets a new one', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'echo', description: 'echoes', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, classes: ['notes'], handler: async (a) => ({ content: [{ type: 'text', text: `n=${String(a.n)}` }] }) });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  try {
    const { client, requests } = scriptedApi([
      [toolUse('call_a', 'echo', { n: 1 }), toolUse('call_b', 'echo', { n: 2 })],
      [toolUse('call_c', 'echo', { n: 3 })],
      [text('ok')],
    ]);
    const source = anthropicToolSource(host, { conversationId: 'replies' });
    const final = await client.beta.messages.toolRunner({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'go' }], tools: source.tools() });
    assert.deepEqual(final.content, [{ type: 'text', text: 'ok' }]);
    const started = (id: string) => events.find((e) => e.modelCallId === id && e.phase === 'started')!;
    assert.equal(started('call_a').inferenceId, started('call_b').inferenceId);
    assert.notEqual(started('call_c').inferenceId, started('call_a').inferenceId);
    assert.equal(started('call_a').conversationId, 'replies');
    assert.deepEqual(toolResults(requests[1]!).map((r) => [r.tool_use_id, r.content]), [['call_a', 'n=1'], ['call_b', 'n=2']]);
    // The source hands out the same list until the host's tools change.
    assert.equal(source.tools(), source.tools());
    host.registerTool({ name: 'later', description: 'added later', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [] }) });
    assert.ok(source.tools().some((t) => t.name === 'later'));
  } finally {
    await host.close();
  }
});

test('an error result reaches the model with is_error; an image as an image block; structured content as JSON text', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'fail', description: 'fails', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ isError: true, content: [{ type: 'text', text: 'disk on fire' }] }) });
  host.registerTool({ name: 'snap', description: 'a picture', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [{ type: 'text', text: 'a dot' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] }) });
  host.registerTool({ name: 'count', description: 'counts', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [{ type: 'text', text: '{"n":3}' }], structuredContent: { n: 3 } }) });
  try {
    const { client, requests } = scriptedApi([[toolUse('call_f', 'fail', {}), toolUse('call_s', 'snap', {}), toolUse('call_n', 'count', {}), toolUse('call_v', 'count', { extra: [] })], [text('seen')]]);
    await client.beta.messages.toolRunner({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'go' }], tools: anthropicTools(host, { conversationId: 'c' }) });
    const byId = new Map(toolResults(requests[1]!).map((r) => [r.tool_use_id, r]));
    assert.equal(byId.get('call_f')?.is_error, true);
    assert.equal(byId.get('call_f')?.content, 'Error: disk on fire');
    assert.deepEqual(byId.get('call_s')?.content, [{ type: 'text', text: 'a dot' }, { type: 'image', source: { type: 'base64', data: 'iVBORw0KGgo=', media_type: 'image/png' } }]);
    assert.equal(byId.get('call_s')?.is_error, undefined);
    assert.equal(byId.get('call_n')?.content, '{"n":3}');
    // toolcell validates arguments: `count` takes none beyond an open object, so this one passes too.
    assert.equal(byId.get('call_v')?.is_error, undefined);
  } finally {
    await host.close();
  }
  // Media the Messages API cannot take becomes a text block that says what it was.
  const audio = toAnthropicContent({ content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] });
  assert.deepEqual(audio, { content: [{ type: 'text', text: '[audio audio/wav, 4 base64 characters: the Messages API cannot take it as input]' }], isError: false });
});

test('an abort of the runner reaches the running call: it ends aborted under the tool_use id', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  host.registerTool({ name: 'hold', description: 'holds', inputSchema: { type: 'object' }, classes: ['shell'], handler: (_a, ctx) => new Promise((resolve) => { started(); ctx.signal.addEventListener('abort', () => resolve({ content: [{ type: 'text', text: 'stopped' }] })); }) });
  const ended = new Promise<HostLifecycleEvent>((resolve) => host.on('lifecycle', (e) => { if (e.tool === 'hold' && e.phase !== 'started') resolve(e); }));
  try {
    const { client } = scriptedApi([[toolUse('call_h', 'hold', {})], [text('unreached')]]);
    const controller = new AbortController();
    const done = client.beta.messages.toolRunner({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'go' }], tools: anthropicTools(host, { conversationId: 'c' }) }, { signal: controller.signal }).runUntilDone();
    await running;
    controller.abort(new Error('user stopped'));
    // The runner may reject or end on the abort; either way the call itself must end aborted.
    await done.catch(() => undefined);
    const end = await ended;
    assert.equal(end.phase, 'aborted');
    assert.equal(end.modelCallId, 'call_h');
  } finally {
    await host.close();
  }
});

test('names follow the API\'s rule and stay distinct; options are checked', async () => {
  assert.equal(anthropicToolName('srv--lookup'), 'srv--lookup');
  assert.equal(anthropicToolName('a.b c/d'), 'a_b_c_d');
  assert.equal(anthropicToolName('x'.repeat(200)).length, 120);
  assert.deepEqual(distinctFunctionNames(['a.b', 'a_b', 'a-b'], anthropicToolName), ['a_b', 'a_b_2', 'a-b']);
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'a.b', description: 'dot', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [{ type: 'text', text: 'dot' }] }) });
  host.registerTool({ name: 'a_b', description: 'underscore', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [{ type: 'text', text: 'underscore' }] }) });
  try {
    const tools = anthropicTools(host, { conversationId: 'c' });
    assert.deepEqual(tools.map((t) => t.name), ['a_b', 'a_b_2']);
    // Each name dispatches to its own host tool.
    const { client, requests } = scriptedApi([[toolUse('call_1', 'a_b', {}), toolUse('call_2', 'a_b_2', {})], [text('ok')]]);
    await client.beta.messages.toolRunner({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'go' }], tools });
    assert.deepEqual(toolResults(requests[1]!).map((r) => r.content), ['dot', 'underscore']);
    assert.throws(() => anthropicTools(host, { conversationId: '' }), /conversationId must be a non-empty string/);
    assert.throws(() => anthropicToolSource(host, { conversationId: 'c', timeoutMs: -1 }), /timeoutMs must be a positive number/);
  } finally {
    await host.close();
  }
});
