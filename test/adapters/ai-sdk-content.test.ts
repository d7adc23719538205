/**
 * toolcell/ai-sdk with a code_execution result that carries content: in a full generateText
 * loop driven by the AI SDK's MockLanguageModelV4, the model runs a script that calls
 * server-everything's get-tiny-image (a real stdio process) and returns the image; the model's
 * next call is given the tool result as content parts, the image as a file part with the
 * same bytes and media type.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pino from 'pino';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { aiSdkTools } from '../../src/adapters/ai-sdk.ts';
import { REPO_ROOT } from '../helpers/peers.ts';
import { binPath } from '../real-servers/servers.ts';

const TINY = (await import(join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'tools', 'get-tiny-image.js'))).MCP_TINY_IMAGE as string;
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

test('a script returns server-everything\'s image: the next model call gets it as a file part', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const ce = registerCodeExecution(host, { languages: ['javascript'] });
  try {
    await host.connectServer({ id: 'ev', command: process.execPath, args: [binPath('everything')] });
    let step = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        step += 1;
        if (step === 1) {
          const code = "const r = await tools.ev__get_tiny_image(); return ['logo:', r.find((b) => b.type === 'image')];";
          return {
            content: [{ type: 'tool-call', toolCallId: 'call_img', toolName: 'code_execution', input: JSON.stringify({ code }) }],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          };
        }
        return { content: [{ type: 'text', text: 'seen' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
      },
    });
    const result = await generateText({ model, tools: aiSdkTools(host, { conversationId: 'conv-img' }), prompt: 'show me the logo', stopWhen: isStepCount(3) });
    assert.equal(result.text, 'seen');
    const prompt = model.doGenerateCalls[1]!.prompt as { role: string; content: { type: string; toolCallId?: string; output?: any }[] }[];
    const toolResult = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).find((p) => p.type === 'tool-result' && p.toolCallId === 'call_img');
    assert.ok(toolResult, JSON.stringify(prompt));
    assert.equal(toolResult.output.type, 'content', JSON.stringify(toolResult.output).slice(0, 500));
    const parts = toolResult.output.value as { type: string; text?: string; data?: unknown; mediaType?: string }[];
    assert.equal(JSON.parse(parts[0]!.text!).ok, true, 'the envelope first');
    assert.deepEqual(parts[1], { type: 'text', text: 'logo:' });
    const image = parts[2]!;
    assert.equal(image.type, 'file');
    assert.equal(image.mediaType, 'image/png', JSON.stringify(image).slice(0, 300));
    const data = typeof image.data === 'string' ? image.data : (image.data as { data: string }).data;
    assert.equal(data, TINY);
  } finally {
    await ce.close();
    await host.close();
  }
});
