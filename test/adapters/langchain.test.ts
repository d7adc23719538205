/**
 * toolcell/langchain in a full tool-calling loop driven by LangChain's own fake chat model
 * (`fakeModel()` from `@langchain/core/testing`, which emits tool calls): the model calls
 * code_execution with a script that calls a real MCP server process's tool, then answers. The
 * loop sees the tool message; a real observer process sees the inner call with the
 * code_execution call as parent and the tool-call message's id as that call's id; an abort
 * from the runnable config reaches the call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import type { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { ToolHost } from '../../src/host/tool-host.ts';
import { langchainToolSource, langchainTools, toLangChainContent } from '../../src/adapters/langchain.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { LOOKUP_SCRIPT, adapterRig, assertInnerCallObserved } from './rig.ts';

// A `toolu_` id of 20+ random characters is one the host reuses as the call's toolCallId, so
// the observer process (which sees toolCallIds, not model call ids) sees the model's own id.
const CE_CALL = 'toolu_01LangChainCodeExec01';

/** The loop LangChain's docs describe: model, then each tool call, until a turn without calls. */
async function loop(model: ReturnType<typeof fakeModel>, tools: DynamicStructuredTool[], callbacks: BaseCallbackHandler[]): Promise<BaseMessage[]> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const bound = model.bindTools(tools);
  const messages: BaseMessage[] = [new HumanMessage('go')];
  for (let turn = 0; turn < 5; turn++) {
    const ai = await bound.invoke(messages, { callbacks });
    messages.push(ai);
    if (!ai.tool_calls?.length) return messages;
    for (const call of ai.tool_calls) messages.push((await byName.get(call.name)!.invoke({ ...call, type: 'tool_call' })) as ToolMessage);
  }
  throw new Error('the loop did not end');
}

test('fakeModel loop: code_execution runs a script calling a real server; the observer sees the inner call under the tool-call id', async () => {
  const rig = await adapterRig();
  const { host } = rig;
  try {
    const { tools, callbacks } = langchainTools(host, { conversationId: 'conv-lc' });
    const model = fakeModel()
      .respondWithTools([{ name: 'code_execution', args: { code: LOOKUP_SCRIPT }, id: CE_CALL }])
      .respond(new AIMessage('done'));
    const messages = await loop(model, tools, callbacks);
    assert.equal(messages.at(-1)!.content, 'done');

    // The loop got the tool message, and the model's second call was given it.
    const toolMessage = messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
    assert.equal(toolMessage.tool_call_id, CE_CALL);
    assert.notEqual(toolMessage.status, 'error');
    assert.match(String(toolMessage.content), /got/);
    assert.equal((toolMessage.artifact as { isError?: boolean }).isError, undefined);
    assert.ok(model.calls[1]!.messages.some((m) => ToolMessage.isInstance(m) && m.tool_call_id === CE_CALL));

    await assertInnerCallObserved(rig, CE_CALL, 'conv-lc');
  } finally {
    await rig.close();
  }
});

test('calls of one model response share an inference (through the callbacks); the next response gets a new one', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'echo', description: 'echoes', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, classes: ['notes'], handler: async (a) => ({ content: [{ type: 'text', text: `n=${String(a.n)}` }] }) });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  try {
    const source = langchainToolSource(host, { conversationId: 'turns' });
    const model = fakeModel()
      .respondWithTools([{ name: 'echo', args: { n: 1 }, id: 'call_a' }, { name: 'echo', args: { n: 2 }, id: 'call_b' }])
      .respondWithTools([{ name: 'echo', args: { n: 3 }, id: 'call_c' }])
      .respond(new AIMessage('ok'));
    const messages = await loop(model, source.tools(), source.callbacks);
    assert.equal(messages.at(-1)!.content, 'ok');
    const started = (id: string) => events.find((e) => e.modelCallId === id && e.phase === 'started')!;
    assert.equal(started('call_a').inferenceId, started('call_b').inferenceId);
    assert.notEqual(started('call_c').inferenceId, started('call_a').inferenceId);
    assert.equal(source.tools(), source.tools());
    host.registerTool({ name: 'later', description: 'added later', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [] }) });
    assert.ok(source.tools().some((t) => t.name === 'later'));
  } finally {
    await host.close();
  }
});

test('an abort from the runnable config reaches the running call: it ends aborted under the tool-call id', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  host.registerTool({ name: 'hold', description: 'holds', inputSchema: { type: 'object' }, classes: ['shell'], handler: (_a, ctx) => new Promise((resolve) => { started(); ctx.signal.addEventListener('abort', () => resolve({ content: [{ type: 'text', text: 'stopped' }] })); }) });
  const ended = new Promise<HostLifecycleEvent>((resolve) => host.on('lifecycle', (e) => { if (e.tool === 'hold' && e.phase !== 'started') resolve(e); }));
  try {
    const { tools } = langchainTools(host, { conversationId: 'c' });
    const controller = new AbortController();
    const call = tools.find((t) => t.name === 'hold')!.invoke({ name: 'hold', args: {}, id: 'call_h', type: 'tool_call' }, { signal: controller.signal });
    await running;
    controller.abort(new Error('user stopped'));
    await assert.rejects(call);
    const end = await ended;
    assert.equal(end.phase, 'aborted');
    assert.equal(end.modelCallId, 'call_h');
  } finally {
    await host.close();
  }
});

test('an error result is a tool message with status "error"; images are standard content blocks', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'fail', description: 'fails', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [{ type: 'text', text: 'no such file' }], isError: true }) });
  host.registerTool({ name: 'snap', description: 'a picture', inputSchema: { type: 'object' }, classes: ['notes'], handler: async () => ({ content: [{ type: 'text', text: 'a dot' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] }) });
  try {
    const { tools } = langchainTools(host, { conversationId: 'c' });
    const byName = new Map(tools.map((t) => [t.name, t]));
    const message = (await byName.get('fail')!.invoke({ name: 'fail', args: {}, id: 'call_f', type: 'tool_call' })) as ToolMessage;
    assert.equal(message.status, 'error');
    assert.equal(message.content, 'no such file');
    assert.equal(message.tool_call_id, 'call_f');
    const picture = (await byName.get('snap')!.invoke({ name: 'snap', args: {}, id: 'call_s', type: 'tool_call' })) as ToolMessage;
    assert.deepEqual(picture.content, [{ type: 'text', text: 'a dot' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }]);
    assert.equal((picture.artifact as { content: unknown[] }).content.length, 2);
    assert.throws(() => langchainTools(host, { conversationId: '' }), /conversationId must be a non-empty string/);
  } finally {
    await host.close();
  }
  assert.deepEqual(toLangChainContent({ content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }), [
    { type: 'text', text: 'a' },
    { type: 'image', data: 'AAAA', mimeType: 'image/png' },
  ]);
  assert.equal(toLangChainContent({ content: [{ type: 'text', text: '{"x":1}' }], structuredContent: { x: 1 } }), '{"x":1}');
});
