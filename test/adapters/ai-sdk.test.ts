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
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { aiSdkTools, toAiSdkModelOutput } from '../../src/adapters/ai-sdk.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { makePeer, observePolicy, scratchDir } from '../helpers/peers.ts';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

// A `toolu_` id of 20+ random characters is one the host reuses as the call's toolCallId, so
// the observer process (which sees toolCallIds, not model call ids) sees the model's own id.
const CE_CALL = 'toolu_01AiSdkCodeExecution01';

test('generateText with MockLanguageModelV4: code_execution runs a script calling a real server; inner calls carry the parent and the SDK toolCallId', async () => {
  const dir = scratchDir();
  const peer = makePeer(dir, 'srv', { tools: [{ name: 'lookup', classes: ['notes'] }] });
  const observer = makePeer(dir, 'obs', { observer: true, policy: observePolicy() });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  const ce = registerCodeExecution(host, { languages: ['javascript'] });
  try {
    await host.connectServer(peer.config);
    await host.connectServer(observer.config);
    let step = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        step += 1;
        if (step === 1) {
          return {
            content: [{ type: 'tool-call', toolCallId: CE_CALL, toolName: 'code_execution', input: JSON.stringify({ code: 'const r = await tools.srv__lookup({ q: 7 }); return "got " + r.tool;' }) }],
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
    await peer.waitFor((e) => e.some((x) => x.event === 'call'), 'the server saw the call');
    // The second model call was given the tool result.
    assert.match(JSON.stringify(model.doGenerateCalls[1]!.prompt), new RegExp(CE_CALL));
    await host.flush();
    await observer.waitFor((e) => e.filter((x) => x.event === 'lifecycle' && x.params.phase !== 'started').length >= 2, 'both calls ended at the observer');
    const seen = observer.lifecycle();
    const parent = seen.find((p) => p.tool === 'code_execution' && p.phase === 'started');
    const seenInner = seen.find((p) => p.tool === 'srv--lookup' && p.phase === 'started');
    assert.equal(parent?.toolCallId, CE_CALL);
    assert.equal(seenInner?._meta?.['agent-framework/parentToolCallId'], CE_CALL);
    assert.equal(seenInner?.inferenceId, parent?.inferenceId);
    assert.equal(seen.find((p) => p.tool === 'srv--lookup' && p.phase !== 'started')?.phase, 'completed');
  } finally {
    await ce.close();
    await host.close();
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
