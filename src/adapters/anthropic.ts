/**
 * `toolcell/anthropic`: the host's tools as runnable tools for the Anthropic SDK's tool runner
 * (`client.beta.messages.toolRunner`, `@anthropic-ai/sdk`), over the public ToolHost API only.
 * Each tool's `run` dispatches with the model's `tool_use` id (`context.toolUse.id`) as the
 * model call id and the runner's abort signal as the call's signal, so a script's inner calls
 * carry that id as their parent; calls of one model reply share one inference; results reach
 * the model as tool-result content (text, images), errors as `is_error` results.
 *
 * Replies: the runner hands a tool nothing of the reply its call came from, but it starts every
 * call of a reply together, in one synchronous pass over the reply's `tool_use` blocks, and asks
 * the model again only once they have all ended. So a call that starts while no reply is open
 * opens one (a new inference), the other calls of that pass join it, and the first of them to
 * end closes it: the next reply's calls cannot start before that. With `runToolsEagerly` the
 * runner starts each call as its block finishes streaming; a call that starts after the reply's
 * earlier calls have all ended then opens an inference of its own.
 */
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool';
import type { BetaTool, BetaToolResultContentBlockParam } from '@anthropic-ai/sdk/resources/beta';
import type { ToolHost } from '../host/tool-host.ts';
import type { ToolListing, ToolResult } from '../host/types.ts';
import { resultShape, type ResultPart } from './result-shape.ts';
import { anthropicToolName, distinctFunctionNames } from './function-names.ts';

/** Options of {@link anthropicTools} and {@link anthropicToolSource}. */
export interface AnthropicToolsOptions {
  /** The conversation every call belongs to (observers and approvals group by it). */
  conversationId: string;
  /** Per-call time limit passed to `dispatch` (default: the host's `callTimeoutMs`). */
  timeoutMs?: number;
}

/** What a tool hands the runner: text, or tool-result content blocks when media are present. */
export type AnthropicToolContent = string | BetaToolResultContentBlockParam[];

/**
 * What the runner hands `run` beside the input, from SDK 1.0 on (`toolUse`; `toolUseBlock` before
 * it was renamed); earlier runners (0.63+) hand nothing, and calls then get host ids. Declared
 * here rather than imported so that the adapter's types hold for every SDK version the peer
 * range takes.
 */
interface RunContext {
  toolUse?: { id?: string };
  toolUseBlock?: { id?: string };
  signal?: AbortSignal | null;
}

/** Thrown for an error result: the runner answers any thrown error with `Error: <message>` and `is_error: true`. */
class ToolResultError extends Error {
  override readonly name = 'ToolResultError';
}

/** Image types the Messages API takes as base64 image sources. */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * A tool result as tool-result content for the Messages API, and whether it is an error:
 * images as base64 image blocks next to the text, structured content as its JSON text. The API
 * takes no audio and only four image types, so any other media part becomes a text block that
 * says what was returned (its type and size), rather than a request the API refuses.
 */
export function toAnthropicContent(result: ToolResult): { content: AnthropicToolContent; isError: boolean } {
  const shape = resultShape(result);
  switch (shape.kind) {
    case 'error':
      return { content: shape.text || 'The tool call failed.', isError: true };
    case 'media':
      return { content: shape.parts.map(contentBlock), isError: false };
    case 'json':
      return { content: JSON.stringify(shape.value), isError: false };
    case 'text':
      return { content: shape.text, isError: false };
  }
}

function contentBlock(part: ResultPart): BetaToolResultContentBlockParam {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'image' && IMAGE_TYPES.has(part.mimeType)) {
    return { type: 'image', source: { type: 'base64', data: part.data, media_type: part.mimeType as 'image/png' } };
  }
  return { type: 'text', text: `[${part.type} ${part.mimeType}, ${part.data.length} base64 characters: the Messages API cannot take it as input]` };
}

/** One inference per model reply (see the file header). */
class Replies {
  private open: string | undefined;

  constructor(
    private readonly host: ToolHost,
    private readonly conversationId: string,
  ) {}

  /** The inference of the reply a starting call belongs to. */
  inference(): string {
    return (this.open ??= this.host.beginInference({ conversationId: this.conversationId }));
  }

  /** A call of `inferenceId` ended: its reply's calls have all started (see the file header). */
  ended(inferenceId: string): void {
    if (this.open === inferenceId) this.open = undefined;
  }
}

function runnableTool(host: ToolHost, listing: ToolListing, name: string, options: AnthropicToolsOptions, replies: Replies): BetaRunnableTool<unknown> {
  const schema = listing.inputSchema;
  return {
    type: 'custom',
    name,
    description: listing.description,
    // The API requires an object schema; a listing without a `type` (MCP says object) gets one.
    input_schema: (schema.type === undefined ? { type: 'object', ...schema } : schema) as BetaTool.InputSchema,
    // toolcell validates the arguments against the listed schema; the runner hands them on as sent.
    parse: (input: unknown) => input,
    run: async (input: unknown, context?: RunContext): Promise<AnthropicToolContent> => {
      const callId = context?.toolUse?.id ?? context?.toolUseBlock?.id;
      const signal = context?.signal ?? undefined;
      const inferenceId = replies.inference();
      const outcome = await host.dispatch({
        inferenceId,
        ...(callId !== undefined ? { modelCallId: callId } : {}),
        name: listing.name,
        input,
        ...(signal ? { signal } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      }).finally(() => replies.ended(inferenceId));
      const { content, isError } = toAnthropicContent(outcome.result);
      // An error result is text only (result-shape.ts). Thrown as a plain error rather than the
      // SDK's ToolError (1.0+ only), which keeps the adapter free of any runtime import of the SDK.
      if (isError) throw new ToolResultError(typeof content === 'string' ? content : JSON.stringify(content));
      return content;
    },
  } as BetaRunnableTool<unknown>;
}

function buildTools(host: ToolHost, options: AnthropicToolsOptions, replies: Replies): BetaRunnableTool<unknown>[] {
  const listings = host.listTools();
  const names = distinctFunctionNames(listings.map((l) => l.name), anthropicToolName);
  return listings.map((listing, i) => runnableTool(host, listing, names[i]!, options, replies));
}

function checked(options: AnthropicToolsOptions, caller: string): AnthropicToolsOptions {
  if (typeof options?.conversationId !== 'string' || options.conversationId === '') throw new TypeError(`${caller}: conversationId must be a non-empty string`);
  if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)) throw new TypeError(`${caller}: timeoutMs must be a positive number`);
  return options;
}

/**
 * Every tool the host lists now (code_execution included) as runnable tools for the Anthropic
 * SDK's tool runner: pass them as `tools` to `client.beta.messages.toolRunner`. Names are the
 * host's (`srv--lookup`) where the API allows them; any other character becomes `_`, and where
 * two names meet the later ones get `_2`, `_3`, …; calls still dispatch by the host's name.
 * The list is a snapshot: build it again when `host.toolsVersion` changes, or use
 * {@link anthropicToolSource}.
 *
 * @example
 * ```ts
 * const tools = anthropicTools(host, { conversationId: 'c1' });
 * const final = await client.beta.messages.toolRunner({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages, tools });
 * ```
 */
export function anthropicTools(host: ToolHost, options: AnthropicToolsOptions): BetaRunnableTool<unknown>[] {
  checked(options, 'anthropicTools');
  return buildTools(host, options, new Replies(host, options.conversationId));
}

/** A source of {@link anthropicTools} lists; see {@link anthropicToolSource}. */
export interface AnthropicToolSource {
  /** The current list: the same array until `host.toolsVersion` changes, then a new one. */
  tools(): BetaRunnableTool<unknown>[];
}

/**
 * A source of {@link anthropicTools} lists that rebuilds only when `host.toolsVersion` changed:
 * pass `source.tools()` to each `toolRunner` call. Lists from one source share their reply
 * bookkeeping.
 */
export function anthropicToolSource(host: ToolHost, options: AnthropicToolsOptions): AnthropicToolSource {
  checked(options, 'anthropicToolSource');
  const replies = new Replies(host, options.conversationId);
  let built: { version: number; tools: BetaRunnableTool<unknown>[] } | undefined;
  return {
    tools() {
      const version = host.toolsVersion;
      if (built?.version !== version) built = { version, tools: buildTools(host, options, replies) };
      return built.tools;
    },
  };
}
