/**
 * `toolcell/langchain`: the host's tools as LangChain.js (`@langchain/core` 1.x) structured
 * tools, over the public ToolHost API only. Each tool dispatches with the tool-call message's
 * id (`config.toolCall.id`, set when the tool is invoked with a `ToolCall`) as the model call
 * id and the runnable config's `signal` as the call's signal; results become the tool
 * message's content (text, or standard content blocks with images and audio) with the host's
 * `ToolResult` as its artifact.
 *
 * Turns: LangChain hands a tool nothing of the model response its call came from. A callback
 * handler does see every model response: passed in the model call's `callbacks` (or the whole
 * run's, which reach the model), it gives the tool calls of one response one inference, and
 * each tool looks its inference up by the tool-call id. It awaits its work (`awaitHandlers`),
 * so the ids are known before `invoke` returns the message that carries them.
 */
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { ToolMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import { tool, type DynamicStructuredTool, type ToolRunnableConfig } from '@langchain/core/tools';
import type { ToolHost } from '../host/tool-host.ts';
import type { ToolListing, ToolResult } from '../host/types.ts';
import { resultShape } from './result-shape.ts';

/** Options of {@link langchainTools} and {@link langchainToolSource}. */
export interface LangChainToolsOptions {
  /** The conversation every call belongs to (observers and approvals group by it). */
  conversationId: string;
  /** Per-call time limit passed to `dispatch` (default: the host's `callTimeoutMs`). */
  timeoutMs?: number;
}

/** A LangChain content block as a tool message carries it: text, or base64 image/audio data. */
export type LangChainContentBlock = { type: 'text'; text: string } | { type: 'image' | 'audio'; data: string; mimeType: string };

/** A tool message's content: a string, or content blocks when the result carries media. */
export type LangChainToolContent = string | LangChainContentBlock[];

/**
 * A tool result as a LangChain tool message's content: images and audio as standard data
 * content blocks next to the text, structured content as its JSON text, otherwise the text.
 * (An error result becomes a tool message with `status: 'error'`; see {@link langchainTools}.)
 */
export function toLangChainContent(result: ToolResult): LangChainToolContent {
  const shape = resultShape(result);
  switch (shape.kind) {
    case 'error':
      return shape.text || 'The tool call failed.';
    case 'media':
      return shape.parts;
    case 'json':
      return JSON.stringify(shape.value);
    case 'text':
      return shape.text;
  }
}

/** Tool-call ids remembered per handler; older ones are forgotten first (their calls long ran). */
const REMEMBERED_CALLS = 10_000;

/** Sees each model response and gives its tool calls one inference (see the file header). */
class TurnHandler extends BaseCallbackHandler {
  name = 'toolcell-turns';
  private readonly byCallId = new Map<string, string>();

  constructor(
    private readonly host: ToolHost,
    private readonly conversationId: string,
  ) {
    super({ _awaitHandler: true });
  }

  /** LangChain copies handlers when it derives child managers: a copy must share the bookkeeping. */
  override copy(): this {
    return this;
  }

  override handleLLMEnd(output: LLMResult): void {
    const ids: string[] = [];
    for (const generations of output.generations) {
      for (const generation of generations) {
        const calls = (generation as { message?: { tool_calls?: Array<{ id?: string }> } }).message?.tool_calls ?? [];
        for (const call of calls) if (typeof call.id === 'string' && call.id !== '') ids.push(call.id);
      }
    }
    if (ids.length === 0) return;
    const inferenceId = this.host.beginInference({ conversationId: this.conversationId });
    for (const id of ids) {
      this.byCallId.delete(id);
      this.byCallId.set(id, inferenceId);
    }
    while (this.byCallId.size > REMEMBERED_CALLS) this.byCallId.delete(this.byCallId.keys().next().value as string);
  }

  /** The inference of the response that made this call, or a fresh one when none is known. */
  inferenceFor(callId: string | undefined): string {
    const known = callId !== undefined ? this.byCallId.get(callId) : undefined;
    return known ?? this.host.beginInference({ conversationId: this.conversationId });
  }
}

function structuredTool(host: ToolHost, listing: ToolListing, options: LangChainToolsOptions, turns: TurnHandler): DynamicStructuredTool {
  return tool(
    async (input: unknown, config: ToolRunnableConfig): Promise<[LangChainToolContent | ToolMessage, ToolResult]> => {
      const callId = config?.toolCall?.id;
      const outcome = await host.dispatch({
        inferenceId: turns.inferenceFor(callId),
        ...(callId !== undefined ? { modelCallId: callId } : {}),
        name: listing.name,
        input,
        ...(config?.signal ? { signal: config.signal } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      });
      const result = outcome.result;
      const content = toLangChainContent(result);
      // A tool message with status "error" is how LangChain tells a model a call failed; it
      // needs the call's id, so a plain-argument invocation gets the error text instead.
      if (result.isError === true && callId !== undefined) {
        return [new ToolMessage({ status: 'error', content, tool_call_id: callId, name: listing.name, artifact: result }), result];
      }
      return [content, result];
    },
    {
      name: listing.name,
      description: listing.description,
      schema: listing.inputSchema as Record<string, unknown>,
      responseFormat: 'content_and_artifact',
      verboseParsingErrors: true,
    },
  ) as unknown as DynamicStructuredTool;
}

function checked(options: LangChainToolsOptions, caller: string): void {
  if (typeof options?.conversationId !== 'string' || options.conversationId === '') throw new TypeError(`${caller}: conversationId must be a non-empty string`);
}

/** The tools of {@link langchainTools} and the callbacks that tie their calls to model responses. */
export interface LangChainToolset {
  /**
   * Every tool the host lists now (code_execution included), named as listed. Bind them to a
   * model (`model.bindTools(tools)`) and invoke one with the model's `ToolCall`
   * (`tool.invoke(toolCall)`): it returns a `ToolMessage` whose `artifact` is the host's
   * `ToolResult` (an error result has `status: 'error'`). LangChain validates the arguments
   * against the listed schema before the host does; a mismatch throws its
   * `ToolInputParsingException`, as for any LangChain tool.
   */
  tools: DynamicStructuredTool[];
  /**
   * Pass these in the model call's config (`invoke(messages, { callbacks })`, or the whole
   * agent run's) so the tool calls of one model response share one inference. Without them
   * each call is its own inference.
   */
  callbacks: BaseCallbackHandler[];
}

/**
 * The host's tools as LangChain structured tools, a snapshot of the listing: build them again
 * when `host.toolsVersion` changes, or use {@link langchainToolSource}.
 *
 * @example
 * ```ts
 * const { tools, callbacks } = langchainTools(host, { conversationId: 'c1' });
 * const ai = await model.bindTools(tools).invoke(messages, { callbacks });
 * for (const call of ai.tool_calls ?? []) messages.push(await tools.find((t) => t.name === call.name)!.invoke(call));
 * ```
 */
export function langchainTools(host: ToolHost, options: LangChainToolsOptions): LangChainToolset {
  checked(options, 'langchainTools');
  const turns = new TurnHandler(host, options.conversationId);
  return { tools: host.listTools().map((l) => structuredTool(host, l, options, turns)), callbacks: [turns] };
}

/** A source of {@link langchainTools} sets; see {@link langchainToolSource}. */
export interface LangChainToolSource {
  /** The current tools: the same array until `host.toolsVersion` changes, then a new one. */
  tools(): DynamicStructuredTool[];
  /** As {@link LangChainToolset.callbacks}; shared by every set this source builds. */
  readonly callbacks: BaseCallbackHandler[];
}

/**
 * A source of {@link langchainTools} sets that rebuilds only when `host.toolsVersion` changed:
 * call `tools()` before each model call (`model.bindTools(source.tools())`).
 */
export function langchainToolSource(host: ToolHost, options: LangChainToolsOptions): LangChainToolSource {
  checked(options, 'langchainToolSource');
  const turns = new TurnHandler(host, options.conversationId);
  let built: { version: number; tools: DynamicStructuredTool[] } | undefined;
  return {
    callbacks: [turns],
    tools() {
      const version = host.toolsVersion;
      if (built?.version !== version) built = { version, tools: host.listTools().map((l) => structuredTool(host, l, options, turns)) };
      return built.tools;
    },
  };
}
