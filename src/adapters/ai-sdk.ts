/**
 * `toolcell/ai-sdk`: the host's tools as an AI SDK (`ai` 7) `ToolSet`, over the public ToolHost
 * API only. Each `execute` dispatches with the SDK's `toolCallId` as the model call id and its
 * `abortSignal` as the call's signal; calls of one model step share one inference (the SDK
 * hands every call of a step the same `messages` array); results reach the model through
 * `toModelOutput` as text, JSON (structured content) or content parts (images, audio, files).
 */
import { jsonSchema, type ToolSet } from 'ai';
import type { ToolHost } from '../host/tool-host.ts';
import type { ContentBlock, ToolResult } from '../host/types.ts';

/** Options of {@link aiSdkTools}. */
export interface AiSdkToolsOptions {
  /** The conversation every call belongs to (observers and approvals group by it). */
  conversationId: string;
  /** Per-call time limit passed to `dispatch` (default: the host's `callTimeoutMs`). */
  timeoutMs?: number;
}

type ModelOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: any }
  | { type: 'error-text'; value: string }
  | { type: 'content'; value: Array<{ type: 'text'; text: string } | { type: 'file'; data: { type: 'data'; data: string }; mediaType: string }> };

/** A tool result as the AI SDK hands it to the model: media as content parts, structured content as JSON. */
export function toAiSdkModelOutput(result: ToolResult): ModelOutput {
  const texts = result.content.filter((b) => b.type === 'text').map((b) => String(b.text));
  if (result.isError === true) return { type: 'error-text', value: texts.join('\n') || 'The tool call failed.' };
  const media = result.content.some((b) => b.type !== 'text');
  if (media) return { type: 'content', value: result.content.map(part) };
  if (result.structuredContent !== undefined) return { type: 'json', value: result.structuredContent };
  return { type: 'text', value: texts.join('\n') };
}

function part(block: ContentBlock): { type: 'text'; text: string } | { type: 'file'; data: { type: 'data'; data: string }; mediaType: string } {
  if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string' && typeof block.mimeType === 'string') {
    return { type: 'file', data: { type: 'data', data: block.data }, mediaType: block.mimeType };
  }
  if (block.type === 'text') return { type: 'text', text: String(block.text) };
  // Resource links and embedded resources have no AI SDK part of their own: the model reads them as JSON text.
  return { type: 'text', text: JSON.stringify(block) };
}

/**
 * Every tool the host lists now (code_execution included) as an AI SDK `ToolSet`. The set is a
 * snapshot of the listing: build it again when `host.toolsVersion` changes (it is cheap), or
 * use {@link aiSdkToolSource}. Each tool's `output` is the host's `ToolResult`.
 */
export function aiSdkTools(host: ToolHost, options: AiSdkToolsOptions): ToolSet {
  if (typeof options?.conversationId !== 'string' || options.conversationId === '') throw new TypeError('aiSdkTools: conversationId must be a non-empty string');
  // One inference per model step: the SDK passes all calls of a step the same messages array.
  const steps = new WeakMap<object, string>();
  const inferenceFor = (messages: unknown): string => {
    if (messages === null || typeof messages !== 'object') return host.beginInference({ conversationId: options.conversationId });
    let id = steps.get(messages);
    if (id === undefined) steps.set(messages, (id = host.beginInference({ conversationId: options.conversationId })));
    return id;
  };
  const set: ToolSet = {};
  for (const listing of host.listTools()) {
    set[listing.name] = {
      description: listing.description,
      inputSchema: jsonSchema(listing.inputSchema as Parameters<typeof jsonSchema>[0]),
      execute: async (input: unknown, call: { toolCallId: string; messages: unknown; abortSignal?: AbortSignal }) => {
        const outcome = await host.dispatch({
          inferenceId: inferenceFor(call.messages),
          modelCallId: call.toolCallId,
          name: listing.name,
          input,
          ...(call.abortSignal ? { signal: call.abortSignal } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        });
        return outcome.result;
      },
      toModelOutput: ({ output }: { output: ToolResult }) => toAiSdkModelOutput(output),
    } as ToolSet[string];
  }
  return set;
}

/** A source of {@link aiSdkTools} sets; see {@link aiSdkToolSource}. */
export interface AiSdkToolSource {
  /** The current set: the same object until `host.toolsVersion` changes, then a new one. */
  tools(): ToolSet;
}

/**
 * A source of {@link aiSdkTools} sets that rebuilds only when `host.toolsVersion` changed:
 * pass `source.tools()` to each `generateText` / `streamText` call.
 */
export function aiSdkToolSource(host: ToolHost, options: AiSdkToolsOptions): AiSdkToolSource {
  let built: { version: number; set: ToolSet } | undefined;
  return {
    tools() {
      const version = host.toolsVersion;
      if (built?.version !== version) built = { version, set: aiSdkTools(host, options) };
      return built.set;
    },
  };
}
