/**
 * Background scripts through each framework adapter (issue 43): the model starts a script with
 * `background: true, wait_ms: 0`, gets `{status: "running", scriptId}` back through the
 * framework, and in its next step calls `code_execution({action: "wait", scriptId})`, which
 * returns the script's result. The adapters pass the input through; the host keeps the first
 * call's ids on the script's inner calls.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { Agent, run, setTracingDisabled } from '@openai/agents';
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from '@openai/agents/testing';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { aiSdkTools } from '../../src/adapters/ai-sdk.ts';
import { openAiAgentsTools } from '../../src/adapters/openai-agents.ts';
import { langchainTools } from '../../src/adapters/langchain.ts';
import { textResult } from '../../src/host/results.ts';
import { adapterRig, type AdapterRig } from './rig.ts';

setTracingDisabled(true);

/** Calls the server's tool, then waits for `hold`, which the test lets go in the model's second step. */
const SCRIPT = 'const r = await tools.srv__lookup({ q: 7 }); await tools.hold({}); return "got " + r.tool;';
const START = { code: SCRIPT, background: true, wait_ms: 0 };

/** A rig whose `hold` tool answers once `letGo()` is called; `scriptIdIn` finds the id the model was shown. */
async function rig(): Promise<AdapterRig & { letGo: () => void; scriptIdIn: (prompt: unknown) => string }> {
  const base = await adapterRig();
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => (letGo = resolve));
  base.host.registerTool({ name: 'hold', description: 'Waits for the test', inputSchema: { type: 'object' }, handler: async () => (await released, textResult('held')) });
  const scriptIdIn = (prompt: unknown) => {
    const text = JSON.stringify(prompt);
    assert.match(text, /running/, 'the model was told the script is running');
    return /scr_[A-Za-z0-9_-]{24}/.exec(text)![0];
  };
  return { ...base, letGo, scriptIdIn };
}

/** The script's inner calls kept the first code_execution call as parent, and the wait returned its result. */
function assertBackgroundRun(r: AdapterRig, finalPrompt: unknown): void {
  const text = JSON.stringify(finalPrompt);
  assert.match(text, /completed/);
  assert.match(text, /got lookup/);
  const first = r.events.find((e) => e.tool === 'code_execution' && e.phase === 'started')!;
  const inner = r.events.filter((e) => e.origin === 'script' && e.phase === 'started');
  assert.deepEqual(inner.map((e) => e.tool).sort(), ['hold', 'srv--lookup']);
  for (const e of inner) assert.equal(e.parentToolCallId, first.toolCallId);
  assert.equal(r.events.filter((e) => e.tool === 'code_execution' && e.phase === 'started').length, 2, 'the start and the wait');
}

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

test('ai-sdk: a background script is started, then waited on in the next step', async () => {
  const r = await rig();
  try {
    let step = 0;
    let finalPrompt: unknown;
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        step += 1;
        const call = (input: unknown) => ({ content: [{ type: 'tool-call' as const, toolCallId: `call_${step}`, toolName: 'code_execution', input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls' as const, raw: undefined }, usage, warnings: [] });
        if (step === 1) return call(START);
        if (step === 2) {
          const scriptId = r.scriptIdIn(prompt);
          r.letGo();
          return call({ action: 'wait', scriptId, wait_ms: 60_000 });
        }
        finalPrompt = prompt;
        return { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: undefined }, usage, warnings: [] };
      },
    });
    const result = await generateText({ model, tools: aiSdkTools(r.host, { conversationId: 'bg-ai' }), prompt: 'go', stopWhen: isStepCount(4) });
    assert.equal(result.text, 'done');
    assertBackgroundRun(r, finalPrompt);
  } finally {
    await r.close();
  }
});

test('openai-agents: a background script is started, then waited on in the next turn', async () => {
  const r = await rig();
  try {
    let finalPrompt: unknown;
    const model = new ScriptedModel([
      [functionCall('code_execution', START, { callId: 'call_start' })],
      modelResponder((call) => {
        const scriptId = r.scriptIdIn(call.request.input);
        r.letGo();
        return [functionCall('code_execution', { action: 'wait', scriptId, wait_ms: 60_000 }, { callId: 'call_wait' })];
      }),
      modelResponder((call) => {
        finalPrompt = call.request.input;
        return [assistantMessage('done')];
      }),
    ]);
    const result = await run(new Agent({ name: 'bg', instructions: 'test', model, tools: openAiAgentsTools(r.host, { conversationId: 'bg-agents' }) }), 'go');
    assert.equal(result.finalOutput, 'done');
    assertBackgroundRun(r, finalPrompt);
  } finally {
    await r.close();
  }
});

test('langchain: a background script is started, then waited on in the next turn', async () => {
  const r = await rig();
  try {
    const { tools, callbacks } = langchainTools(r.host, { conversationId: 'bg-lc' });
    let finalPrompt: unknown;
    const model = fakeModel()
      .respondWithTools([{ name: 'code_execution', args: START, id: 'call_start' }])
      .respond((messages) => {
        const scriptId = r.scriptIdIn(messages.map((m) => m.content));
        r.letGo();
        return new AIMessage({ content: '', tool_calls: [{ name: 'code_execution', args: { action: 'wait', scriptId, wait_ms: 60_000 }, id: 'call_wait', type: 'tool_call' }] });
      })
      .respond((messages) => {
        finalPrompt = messages.map((m) => m.content);
        return new AIMessage('done');
      });
    const byName = new Map(tools.map((t) => [t.name, t]));
    const bound = model.bindTools(tools);
    const messages: BaseMessage[] = [new HumanMessage('go')];
    for (let turn = 0; turn < 5; turn++) {
      const ai = await bound.invoke(messages, { callbacks });
      messages.push(ai);
      if (!ai.tool_calls?.length) break;
      for (const call of ai.tool_calls) messages.push((await byName.get(call.name)!.invoke({ ...call, type: 'tool_call' })) as ToolMessage);
    }
    assert.equal(messages.at(-1)!.content, 'done');
    assertBackgroundRun(r, finalPrompt);
  } finally {
    await r.close();
  }
});
