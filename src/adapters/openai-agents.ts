/**
 * `toolcell/openai-agents`: the host's tools as OpenAI Agents SDK (`@openai/agents`) function
 * tools, over the public ToolHost API only. Each tool's execution dispatches with the run's
 * tool-call id (`details.toolCall.callId`) as the model call id and the run's abort signal as
 * the call's signal; calls of one model turn share one inference; results reach the model as
 * the SDK's tool outputs (text, images, files).
 *
 * Turns: the runner asks every function tool's `isEnabled` while it prepares a model call, and
 * runs the calls of that model response before it prepares the next one. So an `isEnabled`
 * for a run context marks "a new model turn"; the first call after it begins the turn's
 * inference, and the calls after that (same run context, no new mark) share it.
 */
import { tool, UserError, type FunctionTool, type RunContext, type ToolOutputFileContent, type ToolOutputImage, type ToolOutputText } from '@openai/agents';
import type { ToolHost } from '../host/tool-host.ts';
import type { ToolListing, ToolResult } from '../host/types.ts';
import { resultShape, type ResultPart } from './result-shape.ts';
import { distinctFunctionNames } from './function-names.ts';
import { isStrictCompatible } from './strict-schema.ts';

/** Options of {@link openAiAgentsTools} and {@link openAiAgentsToolSource}. */
export interface OpenAiAgentsToolsOptions {
  /** The conversation every call belongs to (observers and approvals group by it). */
  conversationId: string;
  /** Per-call time limit passed to `dispatch` (default: the host's `callTimeoutMs`). */
  timeoutMs?: number;
  /**
   * Offer a tool in strict mode when its schema allows it. `'auto'` (default): a tool whose
   * listed schema is already strict-compatible (every object closed with every property
   * required, only keywords strict mode supports) is offered strict; every other tool is
   * offered non-strict with its schema exactly as listed, since making it strict would change
   * what it accepts. `false`: every tool non-strict.
   */
  strict?: 'auto' | false;
}

/** What a tool hands the Agents SDK: text, or a list of SDK output items when media are present. */
export type OpenAiAgentsToolOutput = string | Array<ToolOutputText | ToolOutputImage | ToolOutputFileContent>;

/**
 * A tool result as the Agents SDK hands it to the model: images as image outputs and audio as
 * file outputs (next to the text), structured content as its JSON text, an error as its text
 * prefixed with `Error:` (function outputs carry no error flag of their own).
 */
export function toOpenAiAgentsOutput(result: ToolResult): OpenAiAgentsToolOutput {
  const shape = resultShape(result);
  switch (shape.kind) {
    case 'error':
      return `Error: ${shape.text || 'the tool call failed.'}`;
    case 'media':
      return shape.parts.map(outputItem);
    case 'json':
      return JSON.stringify(shape.value);
    case 'text':
      return shape.text;
  }
}

function outputItem(part: ResultPart): ToolOutputText | ToolOutputImage | ToolOutputFileContent {
  if (part.type === 'text') return part;
  if (part.type === 'image') return { type: 'image', image: { data: part.data, mediaType: part.mimeType } };
  // The SDK has no audio output: audio goes as a file, which is what its file output is for.
  return { type: 'file', file: { data: part.data, mediaType: part.mimeType, filename: `audio.${part.mimeType.split('/')[1] ?? 'bin'}` } };
}

/** One inference per model turn, per run context (see the file header). */
class Turns {
  private readonly runs = new WeakMap<object, { inferenceId?: string }>();

  constructor(
    private readonly host: ToolHost,
    private readonly conversationId: string,
  ) {}

  /** The runner is preparing a model call for this run: the next call starts a new inference. */
  mark(runContext: object): void {
    this.runs.set(runContext, {});
  }

  inferenceFor(runContext: object | undefined): string {
    if (runContext === undefined) return this.host.beginInference({ conversationId: this.conversationId });
    let turn = this.runs.get(runContext);
    if (turn === undefined) this.runs.set(runContext, (turn = {}));
    return (turn.inferenceId ??= this.host.beginInference({ conversationId: this.conversationId }));
  }
}

type ExecuteDetails = { toolCall?: { callId?: string }; signal?: AbortSignal };

function functionTool(host: ToolHost, listing: ToolListing, name: string, options: OpenAiAgentsToolsOptions, turns: Turns): FunctionTool<unknown, any, OpenAiAgentsToolOutput> {
  const execute = async (input: unknown, runContext?: RunContext<unknown>, details?: ExecuteDetails): Promise<OpenAiAgentsToolOutput> => {
    const callId = details?.toolCall?.callId;
    const outcome = await host.dispatch({
      inferenceId: turns.inferenceFor(runContext),
      ...(callId !== undefined ? { modelCallId: callId } : {}),
      name: listing.name,
      input,
      ...(details?.signal ? { signal: details.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    return toOpenAiAgentsOutput(outcome.result);
  };
  const isEnabled = ({ runContext }: { runContext: RunContext<unknown> }): boolean => {
    turns.mark(runContext);
    return true;
  };
  const common = { name, description: listing.description, execute, isEnabled };
  if (options.strict !== false && isStrictCompatible(listing.inputSchema)) {
    try {
      return tool({ ...common, parameters: listing.inputSchema as any, strict: true }) as FunctionTool<unknown, any, OpenAiAgentsToolOutput>;
    } catch (error) {
      // The SDK's own stricter verdict (say, a $ref it cannot resolve): offer it non-strict, as listed.
      if (!(error instanceof UserError)) throw error;
    }
  }
  return tool({ ...common, parameters: listing.inputSchema as any, strict: false }) as FunctionTool<unknown, any, OpenAiAgentsToolOutput>;
}

function buildTools(host: ToolHost, options: OpenAiAgentsToolsOptions, turns: Turns): FunctionTool<unknown, any, OpenAiAgentsToolOutput>[] {
  const listings = host.listTools();
  const names = distinctFunctionNames(listings.map((l) => l.name));
  return listings.map((listing, i) => functionTool(host, listing, names[i]!, options, turns));
}

function checked(options: OpenAiAgentsToolsOptions, caller: string): OpenAiAgentsToolsOptions {
  if (typeof options?.conversationId !== 'string' || options.conversationId === '') throw new TypeError(`${caller}: conversationId must be a non-empty string`);
  if (options.strict !== undefined && options.strict !== 'auto' && options.strict !== false) throw new TypeError(`${caller}: strict must be 'auto' or false`);
  return options;
}

/**
 * Every tool the host lists now (code_execution included) as Agents SDK function tools, for
 * an `Agent`'s `tools`. Names follow the SDK's rule (characters other than letters and digits
 * become `_`: `srv--lookup` is offered as `srv__lookup`), and where two host names meet under
 * it the later ones get `_2`, `_3`, … so every tool stays callable; calls still dispatch by
 * the host's name. The list is a snapshot of the listing: build it again when `host.toolsVersion`
 * changes, or use {@link openAiAgentsToolSource}.
 *
 * @example
 * ```ts
 * const agent = new Agent({ name: 'a', model, tools: openAiAgentsTools(host, { conversationId: 'c1' }) });
 * const result = await run(agent, 'How many files are here?');
 * ```
 */
export function openAiAgentsTools(host: ToolHost, options: OpenAiAgentsToolsOptions): FunctionTool<unknown, any, OpenAiAgentsToolOutput>[] {
  checked(options, 'openAiAgentsTools');
  return buildTools(host, options, new Turns(host, options.conversationId));
}

/** A source of {@link openAiAgentsTools} lists; see {@link openAiAgentsToolSource}. */
export interface OpenAiAgentsToolSource {
  /** The current list: the same array until `host.toolsVersion` changes, then a new one. */
  tools(): FunctionTool<unknown, any, OpenAiAgentsToolOutput>[];
}

/**
 * A source of {@link openAiAgentsTools} lists that rebuilds only when `host.toolsVersion`
 * changed. An Agents SDK agent reads its `tools` at every turn, so assigning
 * `agent.tools = source.tools()` before each `run` (or building the agent per run) keeps the
 * model's offer current. Lists from one source share their turn bookkeeping.
 */
export function openAiAgentsToolSource(host: ToolHost, options: OpenAiAgentsToolsOptions): OpenAiAgentsToolSource {
  checked(options, 'openAiAgentsToolSource');
  const turns = new Turns(host, options.conversationId);
  let built: { version: number; tools: FunctionTool<unknown, any, OpenAiAgentsToolOutput>[] } | undefined;
  return {
    tools() {
      const version = host.toolsVersion;
      if (built?.version !== version) built = { version, tools: buildTools(host, options, turns) };
      return built.tools;
    },
  };
}
