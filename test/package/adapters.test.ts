/**
 * The four framework adapters as a user gets them: the packed tarball installed into an
 * empty project with only that framework beside it (one shared install per framework, from
 * test/helpers/pack-once.ts, the framework at this repository's devDependency range), then a
 * plain-node script — no tsx — runs one agent loop with the framework's own test double
 * (generateText + MockLanguageModelV4; run() + ScriptedModel; a tool-calling loop over
 * fakeModel(); the Anthropic tool runner over a client whose `fetch` plays the Messages API). The scripted model calls code_execution with a script that calls a real MCP
 * server (the shipped fixtures/peer.mjs); a real observer process (the same fixture) must see
 * that inner call with the code_execution call as its parent, and the framework must have
 * seen the tool result. That the script runs at all proves the adapter imports with none of
 * the other frameworks installed.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { installedApp, ROOT, sh } from '../helpers/pack-once.ts';

const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const DEV = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
const at = (name: string): string => `${name}@${DEV[name]!}`;

/** The model's id for the code_execution call: a `toolu_` id the host reuses as the call's toolCallId. */
const CE_CALL = 'toolu_01PackedAdapterCall01';
const SCRIPT = { code: 'const r = await tools.srv__lookup({ q: 7 }); return "got " + r.tool;' };

/**
 * Shared by the loops: a host with code_execution, the shipped fixture as an MCP server
 * (`srv`, one tool) and as an observer (`obs`); `finish` waits until the observer has read
 * every notification (the fixture answers `fixture/barrier` after all earlier lines), then
 * prints one JSON line with what the framework reported and what the observer saw.
 */
const RIG = `
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolHost, registerCodeExecution } from 'toolcell';

const PEER = join(process.cwd(), 'node_modules', 'toolcell', 'fixtures', 'peer.mjs');
export const CE_CALL = ${JSON.stringify(CE_CALL)};
export const SCRIPT = ${JSON.stringify(SCRIPT)};

export async function rig() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-adapter-'));
  const peer = (id, config) => {
    const path = join(dir, id + '.json');
    writeFileSync(path, JSON.stringify({ log: join(dir, id + '.jsonl'), ...config }));
    return { id, command: process.execPath, args: [PEER], env: { TOOLCELL_PEER_CONFIG: path } };
  };
  const host = new ToolHost();
  const codeExecution = registerCodeExecution(host, { languages: ['javascript'] });
  await host.connectServer(peer('srv', { tools: [{ name: 'lookup', classes: ['notes'] }] }));
  await host.connectServer({ ...peer('obs', { observer: true }), policy: { enabledCapabilities: ['tools', 'toolLifecycle.observe'] } });
  return {
    host,
    async finish(report) {
      await host.flush();
      await host.server('obs').request('fixture/barrier');
      const lifecycle = readFileSync(join(dir, 'obs.jsonl'), 'utf8').split('\\n').filter(Boolean)
        .map((line) => JSON.parse(line)).filter((e) => e.event === 'lifecycle').map((e) => e.params);
      await codeExecution.close();
      await host.close();
      console.log(JSON.stringify({ ...report, lifecycle }));
    },
  };
}
`;

const AI_SDK = `
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { aiSdkTools } from 'toolcell/ai-sdk';
import { rig, CE_CALL, SCRIPT } from './rig.mjs';

const r = await rig();
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let step = 0;
const model = new MockLanguageModelV4({
  doGenerate: async () => ++step === 1
    ? { content: [{ type: 'tool-call', toolCallId: CE_CALL, toolName: 'code_execution', input: JSON.stringify(SCRIPT) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] }
    : { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
});
const result = await generateText({ model, tools: aiSdkTools(r.host, { conversationId: 'conv-packed' }), prompt: 'go', stopWhen: isStepCount(3) });
await r.finish({ answer: result.text, toolResult: JSON.stringify(result.steps[0].toolResults[0].output) });
`;

const OPENAI_AGENTS = `
import { Agent, run, setTracingDisabled } from '@openai/agents';
import { ScriptedModel, assistantMessage, functionCall } from '@openai/agents/testing';
import { openAiAgentsTools } from 'toolcell/openai-agents';
import { rig, CE_CALL, SCRIPT } from './rig.mjs';

setTracingDisabled(true);
const r = await rig();
const model = new ScriptedModel([[functionCall('code_execution', SCRIPT, { callId: CE_CALL })], [assistantMessage('done')]]);
const result = await run(new Agent({ name: 'packed', model, tools: openAiAgentsTools(r.host, { conversationId: 'conv-packed' }) }), 'go');
const output = result.newItems.find((i) => i.type === 'tool_call_output_item');
await r.finish({ answer: result.finalOutput, toolResult: JSON.stringify(output?.output) });
`;

const LANGCHAIN = `
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { langchainTools } from 'toolcell/langchain';
import { rig, CE_CALL, SCRIPT } from './rig.mjs';

const r = await rig();
const { tools, callbacks } = langchainTools(r.host, { conversationId: 'conv-packed' });
const model = fakeModel().respondWithTools([{ name: 'code_execution', args: SCRIPT, id: CE_CALL }]).respond(new AIMessage('done'));
const bound = model.bindTools(tools);
const messages = [new HumanMessage('go')];
let toolResult;
for (let turn = 0; turn < 3; turn++) {
  const ai = await bound.invoke(messages, { callbacks });
  messages.push(ai);
  if (!ai.tool_calls?.length) break;
  for (const call of ai.tool_calls) {
    const message = await tools.find((t) => t.name === call.name).invoke({ ...call, type: 'tool_call' });
    toolResult = JSON.stringify({ id: message.tool_call_id, content: message.content, status: message.status });
    messages.push(message);
  }
}
await r.finish({ answer: messages.at(-1).content, toolResult });
`;

const ANTHROPIC = `
import Anthropic from '@anthropic-ai/sdk';
import { anthropicTools } from 'toolcell/anthropic';
import { rig, CE_CALL, SCRIPT } from './rig.mjs';

const r = await rig();
// The Messages API played by a stub: a tool_use of code_execution, then a final text.
const sent = [];
const reply = (content) => ({ id: 'msg_' + sent.length, type: 'message', role: 'assistant', model: 'm', content, stop_reason: content[0].type === 'tool_use' ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } });
const fetch = async (_url, init) => {
  sent.push(JSON.parse(init.body));
  const body = sent.length === 1 ? reply([{ type: 'tool_use', id: CE_CALL, name: 'code_execution', input: SCRIPT }]) : reply([{ type: 'text', text: 'done' }]);
  return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
};
const client = new Anthropic({ apiKey: 'test', fetch });
const final = await client.beta.messages.toolRunner({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'go' }], tools: anthropicTools(r.host, { conversationId: 'conv-packed' }) });
await r.finish({ answer: final.content[0].text, toolResult: JSON.stringify(sent[1].messages.at(-1).content) });
`;

/**
 * Type checks against the shipped declarations and the framework's own types. Each
 * `@ts-expect-error` line fails the check if its type had decayed to `any` (an adapter
 * declaration that did not resolve, or a framework type it could not find).
 */
const HOST_TYPES = `import { ToolHost } from 'toolcell';\nconst host = new ToolHost();\n`;
const AI_SDK_TYPES = `${HOST_TYPES}
import type { ToolSet } from 'ai';
import { aiSdkToolSource, aiSdkTools, toAiSdkModelOutput } from 'toolcell/ai-sdk';
const set: ToolSet = aiSdkTools(host, { conversationId: 'c' });
const again: ToolSet = aiSdkToolSource(host, { conversationId: 'c' }).tools();
void set; void again; void toAiSdkModelOutput({ content: [] });
// @ts-expect-error a ToolSet is not a number
const wrong: number = aiSdkTools(host, { conversationId: 'c' });
// @ts-expect-error conversationId is required
aiSdkTools(host, {});
void wrong;
`;
const OPENAI_AGENTS_TYPES = `${HOST_TYPES}
import { Agent, type FunctionTool } from '@openai/agents';
import { openAiAgentsToolSource, openAiAgentsTools, toOpenAiAgentsOutput } from 'toolcell/openai-agents';
const tools = openAiAgentsTools(host, { conversationId: 'c', strict: false });
const first: FunctionTool<unknown, any, unknown> | undefined = tools[0];
new Agent({ name: 'typed', tools: openAiAgentsToolSource(host, { conversationId: 'c' }).tools() });
void first; void toOpenAiAgentsOutput({ content: [] });
// @ts-expect-error a function tool is not a number
const wrong: number = tools[0]!;
// @ts-expect-error strict is 'auto' or false
openAiAgentsTools(host, { conversationId: 'c', strict: true });
void wrong;
`;
const LANGCHAIN_TYPES = `${HOST_TYPES}
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { langchainToolSource, langchainTools, toLangChainContent } from 'toolcell/langchain';
const { tools, callbacks } = langchainTools(host, { conversationId: 'c' });
const first: StructuredToolInterface | undefined = tools[0];
const handlers: BaseCallbackHandler[] = [...callbacks, ...langchainToolSource(host, { conversationId: 'c' }).callbacks];
void first; void handlers; void toLangChainContent({ content: [] });
// @ts-expect-error a structured tool is not a number
const wrong: number = tools[0]!;
// @ts-expect-error conversationId is required
langchainTools(host, {});
void wrong;
`;

const ANTHROPIC_TYPES = `${HOST_TYPES}
import Anthropic from '@anthropic-ai/sdk';
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import { anthropicToolSource, anthropicTools, toAnthropicContent } from 'toolcell/anthropic';
const tools = anthropicTools(host, { conversationId: 'c' });
const first: BetaRunnableTool<unknown> | undefined = tools[0];
const client = new Anthropic({ apiKey: 'k' });
void client.beta.messages.toolRunner({ model: 'm', max_tokens: 1, messages: [], tools: anthropicToolSource(host, { conversationId: 'c' }).tools() });
void first; void toAnthropicContent({ content: [] });
// @ts-expect-error a runnable tool is not a number
const wrong: number = tools[0]!;
// @ts-expect-error conversationId is required
anthropicTools(host, {});
void wrong;
`;

const FRAMEWORKS = [
  { name: 'ai-sdk', dependency: at('ai'), loop: AI_SDK, types: AI_SDK_TYPES },
  { name: 'openai-agents', dependency: at('@openai/agents'), loop: OPENAI_AGENTS, types: OPENAI_AGENTS_TYPES },
  { name: 'langchain', dependency: at('@langchain/core'), loop: LANGCHAIN, types: LANGCHAIN_TYPES },
  { name: 'anthropic', dependency: at('@anthropic-ai/sdk'), loop: ANTHROPIC, types: ANTHROPIC_TYPES },
];

interface Report {
  answer: string;
  toolResult: string;
  lifecycle: Array<{ tool: string; phase: string; toolCallId: string; inferenceId: string; conversationId: string; _meta?: Record<string, string> }>;
}

// The installs are independent, so the frameworks run side by side.
describe('each adapter from the packed tarball, with only its framework installed', { concurrency: true }, () => {
  for (const framework of FRAMEWORKS) {
    describe(`toolcell/${framework.name} beside ${framework.dependency}`, () => {
      let app = '';

      before(async (t) => {
        app = await installedApp(`adapter-${framework.name}`, { dependencies: [framework.dependency], signal: (t as { signal?: AbortSignal }).signal });
      });

      it('runs a code_execution whose inner call an observer process sees with its parent', async (t) => {
        writeFileSync(join(app, 'rig.mjs'), RIG);
        writeFileSync(join(app, `loop-${framework.name}.mjs`), framework.loop);
        const { stdout } = await sh(process.execPath, [`loop-${framework.name}.mjs`], app, { signal: t.signal });
        const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as Report;
        assert.equal(report.answer, 'done');
        assert.match(report.toolResult, /got srv--lookup|got lookup/, 'the framework saw the script\'s result');
        const parent = report.lifecycle.find((p) => p.tool === 'code_execution' && p.phase === 'started');
        const inner = report.lifecycle.find((p) => p.tool === 'srv--lookup' && p.phase === 'started');
        assert.equal(parent?.toolCallId, CE_CALL, 'the framework\'s tool-call id is the code_execution call\'s id');
        assert.equal(inner?._meta?.['agent-framework/parentToolCallId'], CE_CALL);
        assert.equal(inner?.inferenceId, parent?.inferenceId);
        assert.equal(inner?.conversationId, 'conv-packed');
        assert.deepEqual(
          report.lifecycle.filter((p) => p.phase !== 'started').map((p) => [p.tool, p.phase]).sort(),
          [['code_execution', 'completed'], ['srv--lookup', 'completed']],
        );
        const others = ['ai', '@openai/agents', '@langchain/core', '@anthropic-ai/sdk'].filter((n) => !framework.dependency.startsWith(`${n}@`));
        assert.deepEqual(others.filter((n) => existsSync(join(app, 'node_modules', n))), [], 'no other framework is installed');
      });

      it('ships types: a TypeScript file using the adapter with the framework\'s types checks with plain tsc', async (t) => {
        writeFileSync(join(app, `check-${framework.name}.ts`), framework.types);
        writeFileSync(
          join(app, `tsconfig-${framework.name}.json`),
          JSON.stringify({
            compilerOptions: {
              target: 'ES2022',
              module: 'NodeNext',
              moduleResolution: 'NodeNext',
              strict: true,
              noEmit: true,
              // Errors inside the frameworks' own declarations are theirs; the @ts-expect-error
              // lines prove the adapter's types resolved to real ones.
              skipLibCheck: true,
              typeRoots: [join(ROOT, 'node_modules', '@types')],
              types: ['node'],
            },
            files: [`check-${framework.name}.ts`],
          }),
        );
        await sh(process.execPath, [TSC, '-p', `tsconfig-${framework.name}.json`], app, { signal: t.signal });
      });
    });
  }
});

/**
 * Mastra 1.x through toolcell/ai-sdk: its Agent runs the loop with the AI SDK's MockLanguageModelV3
 * and calls each tool's `toModelOutput` with the result itself (not `{ output }`, as the AI SDK
 * does); the shapes it used are recorded. Mastra is not a devDependency: npm fetches it (from its
 * cache when an earlier run put it there). Mastra 1.x declares Node ≥ 22.13; on Node 20 npm
 * installs it with engine warnings and the loop runs.
 */
const MASTRA = `
import { Agent } from '@mastra/core/agent';
import { MockLanguageModelV3 } from 'ai/test';
import { aiSdkTools } from 'toolcell/ai-sdk';
import { rig, CE_CALL, SCRIPT } from './rig.mjs';

const r = await rig();
const tools = aiSdkTools(r.host, { conversationId: 'conv-packed' });
const shapes = [];
for (const tool of Object.values(tools)) {
  const convert = tool.toModelOutput;
  tool.toModelOutput = (arg) => {
    shapes.push(arg !== null && typeof arg === 'object' && 'output' in arg ? '{ output }' : 'the result itself');
    return convert(arg);
  };
}
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let step = 0;
const model = new MockLanguageModelV3({
  doGenerate: async () => ++step === 1
    ? { content: [{ type: 'tool-call', toolCallId: CE_CALL, toolName: 'code_execution', input: JSON.stringify(SCRIPT) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] }
    : { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
});
const agent = new Agent({ id: 'packed', name: 'packed', instructions: 'Use code_execution.', model, tools });
const result = await agent.generate('go', { maxSteps: 3 });
const toolResult = JSON.stringify(result.steps?.[0]?.toolResults?.[0] ?? result.toolResults?.[0] ?? null);
await r.finish({ answer: result.text, toolResult, shapes });
`;

describe('toolcell/ai-sdk in a Mastra 1.x agent, from the packed tarball', () => {
  let app = '';

  before(async (t) => {
    app = await installedApp('adapter-mastra', { dependencies: ['@mastra/core@^1.71.0', at('ai')], signal: (t as { signal?: AbortSignal }).signal });
  });

  it('runs a code_execution whose inner call an observer process sees under Mastra\'s tool-call id; toModelOutput(result) works', async (t) => {
    writeFileSync(join(app, 'rig.mjs'), RIG);
    writeFileSync(join(app, 'loop-mastra.mjs'), MASTRA);
    const { stdout } = await sh(process.execPath, ['loop-mastra.mjs'], app, { signal: t.signal });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as Report & { shapes: string[] };
    assert.equal(report.answer, 'done');
    assert.ok(report.shapes.includes('the result itself'), `Mastra called toModelOutput with: ${report.shapes.join(', ')}`);
    const parent = report.lifecycle.find((p) => p.tool === 'code_execution' && p.phase === 'started');
    const inner = report.lifecycle.find((p) => p.tool === 'srv--lookup' && p.phase === 'started');
    assert.equal(parent?.toolCallId, CE_CALL, 'Mastra\'s tool-call id is the code_execution call\'s id');
    assert.equal(inner?._meta?.['agent-framework/parentToolCallId'], CE_CALL);
    assert.equal(inner?.conversationId, 'conv-packed');
    assert.deepEqual(
      report.lifecycle.filter((p) => p.phase !== 'started').map((p) => [p.tool, p.phase]).sort(),
      [['code_execution', 'completed'], ['srv--lookup', 'completed']],
    );
  });
});
