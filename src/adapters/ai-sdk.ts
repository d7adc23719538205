/**
 * `toolcell/ai-sdk`: the host's tools as an AI SDK (`ai` 7) `ToolSet`, over the public ToolHost
 * API only. Each `execute` dispatches with the SDK's `toolCallId` as the model call id and its
 * `abortSignal` as the call's signal; calls of one model step share one inference (the SDK
 * hands every call of a step the same `messages` array); results reach the model through
 * `toModelOutput` as text, JSON (structured content) or content parts (images, audio, files).
 * With `liveOutput`, what a call reports while it runs (a script's output, a server's progress
 * messages) streams as preliminary tool results before the final one.
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
  /**
   * Stream what a call reports while it runs — a script's console lines and prints, a server
   * tool's progress messages — as preliminary tool results (`execute` becomes an async
   * generator): `streamText`'s `fullStream` gets a `tool-result` part with `preliminary: true`
   * per piece, whose output is `{ content: [{ type: 'text', text }], _meta: { 'toolcell/preliminary': true } }`,
   * then the final result as usual. Off by default: a framework that calls `execute` itself
   * (Mastra) may not take an async generator.
   */
  liveOutput?: boolean;
}

/** Pieces of live output waiting for the stream's reader; past it the oldest are dropped and counted. */
export const LIVE_QUEUE_PIECES = 64;

/** The `_meta` key that marks a preliminary result made of live output. */
export const PRELIMINARY_META_KEY = 'toolcell/preliminary';

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
    type Call = { toolCallId: string; messages: unknown; abortSignal?: AbortSignal };
    const dispatch = (input: unknown, call: Call, onProgress?: (p: { message?: string }) => void) =>
      host.dispatch({
        inferenceId: inferenceFor(call.messages),
        modelCallId: call.toolCallId,
        name: listing.name,
        input,
        ...(call.abortSignal ? { signal: call.abortSignal } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(onProgress ? { onProgress } : {}),
      });
    set[listing.name] = {
      description: listing.description,
      inputSchema: jsonSchema(listing.inputSchema as Parameters<typeof jsonSchema>[0]),
      execute: options.liveOutput === true
        ? (input: unknown, call: Call) => withLiveOutput((onProgress) => dispatch(input, call, onProgress))
        : async (input: unknown, call: Call) => (await dispatch(input, call)).result,
      toModelOutput: (arg: unknown) => toAiSdkModelOutput(toolResultOf(arg)),
    } as ToolSet[string];
  }
  return set;
}

/**
 * Runs `start` with a progress sink and yields each progress message as a preliminary result
 * while the call runs, then the call's result. Messages wait for the reader in a queue of at
 * most {@link LIVE_QUEUE_PIECES}; a slow reader loses the oldest (the final result, which holds
 * the whole output within its caps, never waits behind them).
 */
async function* withLiveOutput(start: (onProgress: (p: { message?: string }) => void) => Promise<{ result: ToolResult }>): AsyncGenerator<ToolResult> {
  const queue: string[] = [];
  let dropped = 0;
  let wake: (() => void) | undefined;
  const onProgress = (p: { message?: string }) => {
    if (typeof p.message !== 'string' || p.message === '') return;
    queue.push(p.message);
    if (queue.length > LIVE_QUEUE_PIECES) {
      queue.shift();
      dropped++;
    }
    wake?.();
  };
  let finished = false;
  const outcome = start(onProgress).finally(() => {
    finished = true;
    wake?.();
  });
  // A rejection is rethrown below by `await outcome`; this only keeps it from being unhandled meanwhile.
  outcome.catch(() => undefined);
  for (;;) {
    while (queue.length > 0) {
      const text = dropped > 0 ? `(${dropped} earlier pieces of output not shown)\n${queue.shift()!}` : queue.shift()!;
      dropped = 0;
      yield { content: [{ type: 'text', text }], _meta: { [PRELIMINARY_META_KEY]: true } };
    }
    if (finished) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  yield (await outcome).result;
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
