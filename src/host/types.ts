/**
 * Public types of the tool host: tool definitions, results, dispatch requests and outcomes.
 */
import type { ToolClass } from '../vocabulary/classes.ts';

/** One block of a tool result, as in MCP `CallToolResult.content`. */
export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

/** A tool's result, shaped like MCP's `CallToolResult`. */
export interface ToolResult {
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** What a host built-in's handler receives besides its arguments. */
export interface HostToolContext {
  /** Aborted when the call is aborted (stream end, interrupt, shutdown). */
  signal: AbortSignal;
  toolCallId: string;
  inferenceId: string;
  conversationId: string;
  /** Set when a script made this call; the parent `code_execution` call's `toolCallId`. */
  parentToolCallId?: string;
}

/** A tool the embedding framework implements in-process. */
export interface HostToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** The host's own class table entry for this tool (RFC-008). Omit for an unclassed tool. */
  classes?: readonly ToolClass[];
  handler(args: Record<string, unknown>, ctx: HostToolContext): Promise<ToolResult>;
  /** False for tools a script may not call (such as `code_execution` itself). Default true. */
  scriptCallable?: boolean;
  /** Computes the description at listing time, for tools whose description depends on other tools. */
  describe?: () => string;
}

/** Where a registered tool's effective class came from. */
export type ClassSource = 'override' | 'host' | 'server' | 'none';

/** A tool as the registry holds it: model-facing fields are exactly what its source gave. */
export interface RegisteredTool {
  /** Model-facing name: the built-in's name, or `<serverId>--<tool>`. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly classes: readonly ToolClass[];
  readonly classSource: ClassSource;
  readonly kind: 'host' | 'server';
  readonly serverId?: string;
  readonly serverTool?: string;
  readonly handler?: HostToolDefinition['handler'];
  readonly scriptCallable?: boolean;
  readonly describe?: () => string;
}

/** The model-facing view of a tool, as the framework lists it for the model. */
export interface ToolListing {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  classes: ToolClass[];
  classSource: ClassSource;
  serverId?: string;
}

/** Who issued a call: the model itself, or a script running inside a `code_execution` call. */
export type CallOrigin = 'model' | 'script';

/** One tool call to dispatch. */
export interface DispatchRequest {
  /** The inference whose output requested the call (see {@link ToolHost.beginInference}). */
  inferenceId: string;
  /** The model's own id for the call (`toolu_…`, `call_0`); reused as `toolCallId` only when it qualifies. */
  modelCallId?: string;
  name: string;
  input: unknown;
  /** For calls made by scripts: the parent `code_execution` call's `toolCallId`. */
  parentToolCallId?: string;
  /**
   * Gives up on a call whose result never comes back: the call ends `failed`. Defaults to the
   * host's `callTimeoutMs`.
   */
  timeoutMs?: number;
  /**
   * Told when the call starts waiting for approval; the function it returns is called when
   * the wait ends. `code_execution` passes the script's `pauseClock`, so that a human's wait
   * never counts against the script's time limit.
   */
  onPending?: () => () => void;
}

/** What an approval gate is asked about. */
export interface ApprovalRequest {
  toolCallId: string;
  tool: string;
  classes: readonly string[];
  serverId?: string;
  input: Record<string, unknown>;
  inferenceId: string;
  conversationId: string;
  origin: CallOrigin;
  modelCallId?: string;
  parentToolCallId?: string;
}

export type ApprovalDecision = boolean | { approved: boolean; reason?: string };

/**
 * A gate the host controls (RFC-007 `pending`): calls it requires wait, reported `pending`
 * (metadata only), until `decide` resolves. Approved calls then report `started` and run;
 * refused ones end `aborted` and never run.
 */
export interface ApprovalGate {
  /** Synchronously: must this call wait for a decision? */
  required(call: Omit<ApprovalRequest, 'toolCallId'>): boolean;
  /** The decision. `signal` aborts when the call is aborted while it waits (stream end, shutdown). */
  decide(call: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

/** How a dispatch ended. `refused` calls never opened and produced no lifecycle events. */
export type DispatchStatus = 'completed' | 'failed' | 'aborted' | 'refused';

/** Why a call was refused before it opened. */
export type RefusalCode =
  | 'unknown_tool'
  | 'server_unavailable'
  | 'policy'
  | 'invalid_arguments'
  | 'recursion'
  | 'shutting_down'
  | 'unknown_inference'
  /** The inference's call budget was spent. */
  | 'budget_exceeded'
  /** A script call whose parent call (its `code_execution`) had already ended. */
  | 'parent_ended'
  /** Refused by the approval gate after `pending`: the call opened, and ended `aborted`. */
  | 'approval_refused';

export interface DispatchOutcome {
  status: DispatchStatus;
  /** What the framework hands back to the model. Always present, an error result when not completed. */
  result: ToolResult;
  /** Set once the call opened. */
  toolCallId?: string;
  refusal?: { code: RefusalCode; message: string };
  durationMs?: number;
}
