/**
 * toolcell/ai-sdk in a full generateText loop driven by the AI SDK's own MockLanguageModelV4:
 * the scripted model calls code_execution with a script calling a real MCP server process's
 * tool, then answers. The SDK sees the tool result; a real observer process sees the inner
 * call with the code_execution call as parent and the SDK's toolCallId as that call's id, and
 * in process the SDK's toolCallId is the model call id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { ToolHost } from '../../src/host/tool-host.ts';
import { aiSdkTools, toAiSdkModelOutput } from '../../src/adapters/ai-sdk.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { LOOKUP_SCRIPT, adapterRig, assertInnerCallObserved } from './rig.ts';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

// A `toolu_` id of 20+ random characters is one the host reuses as the call's toolCallId, so
// the observer process (which sees toolCallIds, not model call ids) sees the model's own id.
const CE_CALL = 'toolu_01AiSdkCodeExecution01';

test('generateText with MockLanguageModelV4: code_execution runs a script calling a real server; inner calls carry the parent and the SDK toolCallId', async () => {
  const rig = await adapterRig();
  const { host, events } = rig;
  try {
    let step = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        step += 1;
        if (step === 1) {
          return {
            content: [{ type: 'tool-call', toolCallId: CE_CALL, toolName: 'code_execution', input: JSON.stringify({ code: LOOKUP_SCRIPT }) }],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          };
        }
        return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
      },
    });
    const result = await generateText({ model, tools: aiSdkTools(host, { conversationId: 'conv-ai' }), prompt: 'go', stopWhen: isStepCount(3) });
    assert.equal(result.text, 'done');
    const toolResult = result.steps[0]!.toolResults[0]!;
    assert.equal(toolResult.toolCallId, CE_CALL);
    assert.equal((toolResult.output as { isError?: boolean }).isError, undefined);
    const parentStart = events.find((e) => e.tool === 'code_execution' && e.phase === 'started')!;
    assert.equal(parentStart.modelCallId, CE_CALL);
    const inner = events.find((e) => e.tool === 'srv--lookup' && e.phase === 'started')!;
    assert.ok(inner, 'the script called the server tool');
    assert.equal(inner.parentToolCallId, parentStart.toolCallId);
    assert.equal(inner.inferenceId, parentStart.inferenceId);
    assert.equal(inner.conversationId, 'conv-ai');
    // The second model call was given the tool result.
    assert.match(JSON.stringify(model.doGenerateCalls[1]!.prompt), new RegExp(CE_CALL));
    await assertInnerCallObserved(rig, CE_CALL, 'conv-ai');
  } finally {
    await rig.close();
  }
});

test('calls of one model step share an inference; the next step gets a new one', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'echo', description: 'echoes', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, classes: ['notes'], handler: async (a) => ({ content: [{ type: 'text', text: `n=${String(a.n)}` }] }) });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  const call = (id: string, n: number) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 'echo', input: JSON.stringify({ n }) });
  try {
    const model = new MockLanguageModelV4({
      doGenerate: [
        { content: [call('call_a', 1), call('call_b', 2)], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] },
        { content: [call('call_c', 3)], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] },
        { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
      ],
    });
    const result = await generateText({ model, tools: aiSdkTools(host, { conversationId: 'turns' }), prompt: 'go', stopWhen: isStepCount(4) });
    assert.equal(result.text, 'ok');
    const started = (id: string) => events.find((e) => e.modelCallId === id && e.phase === 'started')!;
    assert.equal(started('call_a').inferenceId, started('call_b').inferenceId);
    assert.notEqual(started('call_c').inferenceId, started('call_a').inferenceId);
  } finally {
    await host.close();
  }
});

test('an abort from generateText reaches the running call: it ends aborted', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  host.registerTool({ name: 'hold', description: 'holds', inputSchema: { type: 'object' }, classes: ['shell'], handler: (_a, ctx) => new Promise((resolve) => { started(); ctx.signal.addEventListener('abort', () => resolve({ content: [{ type: 'text', text: 'stopped' }] })); }) });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  try {
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({ content: [{ type: 'tool-call', toolCallId: 'call_h', toolName: 'hold', input: '{}' }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] }),
    });
    const controller = new AbortController();
    const run = generateText({ model, tools: aiSdkTools(host, { conversationId: 'c' }), prompt: 'go', abortSignal: controller.signal });
    await running;
    controller.abort(new Error('user stopped'));
    // generateText may reject or end its loop on the abort; either way the call itself must end aborted.
    await run.catch(() => undefined);
    const end = events.find((e) => e.tool === 'hold' && e.phase !== 'started');
    assert.equal(end?.phase, 'aborted');
    assert.equal(end?.modelCallId, 'call_h');
  } finally {
    await host.close();
  }
});

test('toModelOutput: images as file parts, structured content as JSON, errors as error text', () => {
  assert.deepEqual(toAiSdkModelOutput({ content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }), {
    type: 'content',
    value: [{ type: 'text', text: 'a' }, { type: 'file', data: { type: 'data', data: 'AAAA' }, mediaType: 'image/png' }],
  });
  assert.deepEqual(toAiSdkModelOutput({ content: [{ type: 'text', text: '{"x":1}' }], structuredContent: { x: 1 } }), { type: 'json', value: { x: 1 } });
  assert.deepEqual(toAiSdkModelOutput({ content: [{ type: 'text', text: 'bad' }], isError: true }), { type: 'error-text', value: 'bad' });
});

test('toModelOutput takes the AI SDK\'s ({ output }) and the result itself (Mastra calls toModelOutput(output))', () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'x', description: 'x', inputSchema: { type: 'object' }, handler: async () => ({ content: [{ type: 'text', text: 'x' }] }) });
  const toModelOutput = (aiSdkTools(host, { conversationId: 'c' }).x as unknown as { toModelOutput: (arg: unknown) => unknown }).toModelOutput;
  const ok = { content: [{ type: 'text', text: '{"n":2}' }], structuredContent: { n: 2 } };
  const failed = { content: [{ type: 'text', text: 'no such file' }], isError: true };
  // The AI SDK's shape, with the fields it passes beside output.
  assert.deepEqual(toModelOutput({ toolCallId: 'call_1', input: {}, output: ok }), { type: 'json', value: { n: 2 } });
  assert.deepEqual(toModelOutput({ toolCallId: 'call_1', input: {}, output: failed }), { type: 'error-text', value: 'no such file' });
  // Mastra's: the tool's output alone.
  assert.deepEqual(toModelOutput(ok), { type: 'json', value: { n: 2 } });
  assert.deepEqual(toModelOutput(failed), { type: 'error-text', value: 'no such file' });
  // Neither shape: a typed error naming what came, not a TypeError from deep inside.
  assert.throws(() => toModelOutput({ output: 'text' }), /toModelOutput: expected a tool result or \{ output: tool result \}, got \{"output":"text"\}/);
  assert.throws(() => toModelOutput(undefined), /got undefined/);
});
