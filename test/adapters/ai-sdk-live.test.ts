/**
 * Live script output reaches an AI SDK `streamText` consumer (issue 44, item 5): with
 * `aiSdkTools(host, { liveOutput: true })` a code_execution call's console lines arrive in
 * `fullStream` as preliminary tool results while the script still waits on a tool, before the
 * final result; the model still gets only the final result. Driven by the AI SDK's own
 * MockLanguageModelV4 (ai/test). Without the option nothing preliminary is sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { isStepCount, streamText } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { aiSdkTools, PRELIMINARY_META_KEY } from '../../src/adapters/ai-sdk.ts';
import { registerWaitTool } from '../helpers/tools.ts';

const SCRIPT = 'console.log("first line"); await tools.wait({}); console.log("second line"); return 42';
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A model that calls code_execution once, then answers "done" (its stream parts, as a provider sends them). */
function scriptedModel(): MockLanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: convertArrayToReadableStream(
        (++step === 1
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'tool-call', toolCallId: 'call_live', toolName: 'code_execution', input: JSON.stringify({ code: SCRIPT }) },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'done' },
              { type: 'text-end', id: 't' },
              { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
            ]) as any[],
      ) as any,
    }),
  });
}

type Part = { type: string; preliminary?: boolean; output?: { content?: Array<{ text?: string }>; _meta?: Record<string, unknown>; structuredContent?: { value?: unknown } } };

for (const liveOutput of [true, false]) {
  test(`streamText, liveOutput ${liveOutput}: ${liveOutput ? 'a script\'s console lines arrive as preliminary tool results before the final one' : 'only the final tool result'}`, async () => {
    const host = new ToolHost({ logger: pino({ level: 'silent' }) });
    const releases = registerWaitTool(host);
    const ce = registerCodeExecution(host, { languages: ['javascript'] });
    try {
      const result = streamText({ model: scriptedModel(), tools: aiSdkTools(host, { conversationId: 'live', liveOutput }), prompt: 'go', stopWhen: isStepCount(3) });
      const results: Part[] = [];
      let text = '';
      for await (const part of result.fullStream as AsyncIterable<Part & { text?: string }>) {
        if (part.type === 'tool-result') {
          results.push(part);
          // The script is held by `wait` until its first line has been read from the stream:
          // that line cannot have come with the final result.
          if (part.preliminary && part.output?.content?.[0]?.text?.includes('first line')) releases.shift()?.();
        }
        if (part.type === 'text-delta') text += part.text ?? '';
        // Without live output nothing tells the reader the script waits: release it once the call started.
        if (!liveOutput && part.type === 'tool-call') setImmediate(function release() { const r = releases.shift(); if (r) r(); else setImmediate(release); });
      }
      assert.equal(text, 'done');
      const final = results.filter((p) => !p.preliminary);
      assert.equal(final.length, 1);
      assert.equal(final[0]!.output?.structuredContent?.value, 42);
      const preliminary = results.filter((p) => p.preliminary);
      if (!liveOutput) {
        assert.deepEqual(preliminary, []);
        return;
      }
      // The SDK repeats the last value an async execute yields (the final result) as a last
      // preliminary part, then sends it as final; every other preliminary part is live output.
      assert.deepEqual(preliminary.at(-1)!.output, final[0]!.output);
      const live = preliminary.slice(0, -1);
      assert.ok(live.length >= 1 && live.every((p) => p.output?._meta?.[PRELIMINARY_META_KEY] === true), JSON.stringify(live));
      const lines = live.map((p) => p.output!.content![0]!.text!).join('');
      assert.match(lines, /first line[\s\S]*second line/);
      // Every live part came before the final one.
      assert.ok(results.indexOf(final[0]!) > results.indexOf(live.at(-1)!));
      // The model was handed only the final result.
      const steps = await result.steps;
      assert.equal(steps[0]!.toolResults.length, 1);
      assert.equal((steps[0]!.toolResults[0]!.output as { structuredContent: { value: unknown } }).structuredContent.value, 42);
    } finally {
      await ce.close();
      await host.close();
    }
  });
}
