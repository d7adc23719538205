/**
 * toolcell/openai-agents in full Agents SDK runs driven by the SDK's own ScriptedModel (its
 * `Model` test double, from `@openai/agents/testing`): the scripted model calls code_execution
 * with a script that calls a real MCP server process's tool, then answers. The run sees the tool
 * result; a real observer process sees the inner call with the code_execution call as parent
 * and the run's tool-call id as the code_execution call's id; an abort of the run reaches the call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { Agent, run, setTracingDisabled } from '@openai/agents';
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from '@openai/agents/testing';
import { ToolHost } from '../../src/host/tool-host.ts';
import { openAiAgentsToolSource, openAiAgentsTools, toOpenAiAgentsOutput } from '../../src/adapters/openai-agents.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { LOOKUP_SCRIPT, adapterRig, assertInnerCallObserved } from './rig.ts';

// The SDK exports traces to OpenAI by default; these runs have no key and nothing to export.
setTracingDisabled(true);

// A `toolu_` id of 20+ random characters is one the host reuses as the call's toolCallId, so
// the observer process (which sees toolCallIds, not model call ids) sees the model's own id.
const CE_CALL = 'toolu_01AgentsCodeExecution1';

test('run() with ScriptedModel: code_execution runs a script calling a real server; the observer sees the inner call under the run\'s tool-call id', async () => {
  const rig = await adapterRig();
  const { host } = rig;
  try {
    const tools = openAiAgentsTools(host, { conversationId: 'conv-agents' });
    assert.ok(tools.some((t) => t.name === 'code_execution'));
    assert.ok(tools.some((t) => t.name === 'srv__lookup'), `names: ${tools.map((t) => t.name).join(', ')}`);
    const model = new ScriptedModel([
      [functionCall('code_execution', { code: LOOKUP_SCRIPT }, { callId: CE_CALL })],
      [assistantMessage('done')],
    ]);
    const agent = new Agent({ name: 'scripted', instructions: 'test', model, tools });
    const result = await run(agent, 'go');
    assert.equal(result.finalOutput, 'done');
    model.assertComplete();

    // The runner saw the tool's result and handed it to the model's second turn.
    const output = result.newItems.find((i) => i.type === 'tool_call_output_item');
    assert.ok(output, 'the run recorded a tool output');
    assert.match(JSON.stringify((output as { output: unknown }).output), /got/);
    assert.match(JSON.stringify(model.calls[1]!.request.input), new RegExp(`${CE_CALL}[\\s\\S]*got`));

    await assertInnerCallObserved(rig, CE_CALL, 'conv-agents');
  } finally {
    await rig.close();
  }
});

test('calls of one model turn share an inference; the next turn gets a new one', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'echo', description: 'echoes', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, classes: ['notes'], handler: async (a) => ({ content: [{ type: 'text', text: `n=${String(a.n)}` }] }) });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  try {
    const model = new ScriptedModel([
      [functionCall('echo', { n: 1 }, { callId: 'call_a' }), functionCall('echo', { n: 2 }, { callId: 'call_b' })],
      [functionCall('echo', { n: 3 }, { callId: 'call_c' })],
      [assistantMessage('ok')],
    ]);
    const source = openAiAgentsToolSource(host, { conversationId: 'turns' });
    const result = await run(new Agent({ name: 'turns', model, tools: source.tools() }), 'go');
    assert.equal(result.finalOutput, 'ok');
    const started = (id: string) => events.find((e) => e.modelCallId === id && e.phase === 'started')!;
    assert.equal(started('call_a').inferenceId, started('call_b').inferenceId);
    assert.notEqual(started('call_c').inferenceId, started('call_a').inferenceId);
    // A streamed run takes the same path: its calls carry their ids and share their turn's inference.
    const streamedModel = new ScriptedModel([
      [functionCall('echo', { n: 4 }, { callId: 'call_d' }), functionCall('echo', { n: 5 }, { callId: 'call_e' })],
      [assistantMessage('streamed')],
    ]);
    const streamed = await run(new Agent({ name: 'turns', model: streamedModel, tools: source.tools() }), 'go', { stream: true });
    for await (const _event of streamed) void _event;
    await streamed.completed;
    assert.equal(streamed.finalOutput, 'streamed');
    assert.equal(started('call_d').inferenceId, started('call_e').inferenceId);
    assert.notEqual(started('call_d').inferenceId, started('call_c').inferenceId);
    // The source hands out the same list until the host's tools change.
    assert.equal(source.tools(), source.tools());
    host.registerTool({ name: 'later', description: 'added later', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [] }) });
    assert.ok(source.tools().some((t) => t.name === 'later'));
  } finally {
    await host.close();
  }
});

test('an abort of the run reaches the running call: it ends aborted under the run\'s tool-call id', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  host.registerTool({ name: 'hold', description: 'holds', inputSchema: { type: 'object' }, classes: ['shell'], handler: (_a, ctx) => new Promise((resolve) => { started(); ctx.signal.addEventListener('abort', () => resolve({ content: [{ type: 'text', text: 'stopped' }] })); }) });
  const ended = new Promise<HostLifecycleEvent>((resolve) => host.on('lifecycle', (e) => { if (e.tool === 'hold' && e.phase !== 'started') resolve(e); }));
  try {
    const model = new ScriptedModel([[functionCall('hold', {}, { callId: 'call_h' })], modelResponder(() => [assistantMessage('unreached')])]);
    const controller = new AbortController();
    const done = run(new Agent({ name: 'abort', model, tools: openAiAgentsTools(host, { conversationId: 'c' }) }), 'go', { signal: controller.signal });
    await running;
    controller.abort(new Error('user stopped'));
    // The run may reject or end on the abort; either way the call itself must end aborted.
    await done.catch(() => undefined);
    const end = await ended;
    assert.equal(end.phase, 'aborted');
    assert.equal(end.modelCallId, 'call_h');
  } finally {
    await host.close();
  }
});

test('strict where the listed schema is strict-compatible, non-strict (schema as listed) elsewhere', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  try {
    const closed = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    // Optional properties: strict mode would make them required-and-nullable, so it is offered as listed.
    const open = { type: 'object', properties: { a: { type: 'string' } } };
    host.registerTool({ name: 'closed', description: 'c', inputSchema: closed, classes: ['notes'], handler: async () => ({ content: [] }) });
    host.registerTool({ name: 'open', description: 'o', inputSchema: open, classes: ['notes'], handler: async () => ({ content: [] }) });
    const byName = new Map(openAiAgentsTools(host, { conversationId: 'c' }).map((t) => [t.name, t]));
    assert.equal(byName.get('closed')!.strict, true);
    assert.equal(byName.get('open')!.strict, false);
    assert.deepEqual(byName.get('open')!.parameters, open);
    const never = new Map(openAiAgentsTools(host, { conversationId: 'c', strict: false }).map((t) => [t.name, t]));
    assert.equal(never.get('closed')!.strict, false);
    assert.throws(() => openAiAgentsTools(host, { conversationId: '' }), /conversationId must be a non-empty string/);
  } finally {
    await host.close();
  }
});

test('an image result reaches the model as an image input through the runner', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'snap', description: 'a picture', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [{ type: 'text', text: 'a dot' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] }) });
  try {
    const model = new ScriptedModel([[functionCall('snap', {}, { callId: 'call_s' })], [assistantMessage('seen')]]);
    const result = await run(new Agent({ name: 'img', model, tools: openAiAgentsTools(host, { conversationId: 'c' }) }), 'go');
    assert.equal(result.finalOutput, 'seen');
    const sent = JSON.stringify(model.calls[1]!.request.input);
    assert.match(sent, /"type":"input_image"[^}]*data:image\/png;base64,iVBORw0KGgo=/);
    assert.match(sent, /"type":"input_text","text":"a dot"/);
  } finally {
    await host.close();
  }
});

test('two host tools whose names meet under the SDK rule both stay callable', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'a-b', description: 'dash', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [{ type: 'text', text: 'dash' }] }) });
  host.registerTool({ name: 'a_b', description: 'underscore', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [{ type: 'text', text: 'underscore' }] }) });
  try {
    const tools = openAiAgentsTools(host, { conversationId: 'c' });
    assert.deepEqual(tools.map((t) => t.name), ['a_b', 'a_b_2']);
    const model = new ScriptedModel([[functionCall('a_b', {}, { callId: 'call_1' }), functionCall('a_b_2', {}, { callId: 'call_2' })], [assistantMessage('ok')]]);
    const result = await run(new Agent({ name: 'names', model, tools }), 'go');
    const outputs = result.newItems.filter((i) => i.type === 'tool_call_output_item').map((i) => (i as { output: unknown }).output);
    assert.deepEqual(outputs, ['dash', 'underscore']);
  } finally {
    await host.close();
  }
});

test('tool outputs: images as image outputs, audio as files, structured content as JSON, errors as error text', () => {
  assert.deepEqual(toOpenAiAgentsOutput({ content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }), [
    { type: 'text', text: 'a' },
    { type: 'image', image: { data: 'AAAA', mediaType: 'image/png' } },
  ]);
  assert.deepEqual(toOpenAiAgentsOutput({ content: [{ type: 'audio', data: 'BBBB', mimeType: 'audio/wav' }] }), [{ type: 'file', file: { data: 'BBBB', mediaType: 'audio/wav', filename: 'audio.wav' } }]);
  assert.equal(toOpenAiAgentsOutput({ content: [{ type: 'text', text: '{"x":1}' }], structuredContent: { x: 1 } }), '{"x":1}');
  assert.equal(toOpenAiAgentsOutput({ content: [{ type: 'text', text: 'bad' }], isError: true }), 'Error: bad');
  assert.equal(toOpenAiAgentsOutput({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }), 'a\nb');
});
