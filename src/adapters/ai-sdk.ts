/**
 * `toolcell/ai-sdk`: the host's tools as an AI SDK (`ai` 7) `ToolSet`, over the public ToolHost
 * API only. Each `execute` dispatches with the SDK's `toolCallId` as the model call id and its
 * `abortSignal` as the call's signal; calls of one model step share one inference (the SDK
 * hands every call of a step the same `messages` array); results reach the model through
 * `toModelOutput` as text, JSON (structured content) or content parts (images, audio, files).
 */
import { jsonSchema, type ToolSet } from 'ai';
import type { ToolHost } from '../host/tool-host.ts';
import type { ToolResult } from '../host/types.ts';
import { resultShape } from './result-shape.ts';

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
  const shape = resultShape(result);
  switch (shape.kind) {
    case 'error':
      return { type: 'error-text', value: shape.text || 'The tool call failed.' };
    case 'media':
      return { type: 'content', value: shape.parts.map((p) => (p.type === 'text' ? p : { type: 'file' as const, data: { type: 'data' as const, data: p.data }, mediaType: p.mimeType })) };
    case 'json':
      return { type: 'json', value: shape.value };
    case 'text':
      return { type: 'text', value: shape.text };
  }
}

/** Whether `value` is a host result: MCP's `CallToolResult` always carries a `content` array. */
function isToolResult(value: unknown): value is ToolResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as { content?: unknown }).content);
}

/**
 * The result a framework hands `toModelOutput`. The AI SDK passes `{ toolCallId, input, output }`;
 * Mastra's agent passes the output itself. A result has a `content` array and never an `output`
 * key, so the two cannot be mistaken for each other; anything else is a typed error that shows
 * what came (cut to 200 characters) rather than a TypeError from inside the conversion.
 */
function toolResultOf(arg: unknown): ToolResult {
  if (isToolResult(arg)) return arg;
  const wrapped = typeof arg === 'object' && arg !== null ? (arg as { output?: unknown }).output : undefined;
  if (isToolResult(wrapped)) return wrapped;
  let shown: string;
  try {
    shown = arg === undefined ? 'undefined' : JSON.stringify(arg).slice(0, 200);
  } catch (error) {
    shown = `an unprintable ${typeof arg} (${(error as Error).message})`;
  }
  throw new TypeError(`toModelOutput: expected a tool result or { output: tool result }, got ${shown}`);
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
      toModelOutput: (arg: unknown) => toAiSdkModelOutput(toolResultOf(arg)),
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
