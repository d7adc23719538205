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

/**
 * One progress report of a running call (MCP `notifications/progress`): `progress` grows
 * with each report; `total` when the tool knows it; `message` a human-readable note.
 */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** What a host built-in's handler receives besides its arguments. */
export interface HostToolContext {
  /** Aborted when the call is aborted (stream end, interrupt, shutdown, its safety timeout). */
  signal: AbortSignal;
  /**
   * Reports progress to the caller, when the caller asked for it (`onProgress`); otherwise a
   * no-op. Reports after the call ended are dropped.
   */
  progress(p: ProgressUpdate): void;
  toolCallId: string;
  inferenceId: string;
  conversationId: string;
  /** Who called: the model directly, or a script (then {@link parentToolCallId} names its `code_execution` call). */
  origin: 'model' | 'script';
  /** Set when a script made this call; the parent `code_execution` call's `toolCallId`. */
  parentToolCallId?: string;
  /** The model's own id for this call, when it gave one. */
  modelCallId?: string;
  /**
   * Present only when the caller asked for progress, and then the same function as `progress`:
   * a tool that relays progress from elsewhere (code_execution's inner calls) asks for it only then.
   */
  onProgress?: (p: ProgressUpdate) => void;
}

/** Who may call a tool: the model directly, a script, or both (the default). */
export type ToolCallers = 'both' | 'model' | 'script';

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
  /**
   * Who may call the tool: `'both'` (default), `'model'` (a direct call only: absent from the
   * scripts' declarations, refused from a script as `caller_not_allowed`) or `'script'` (only
   * from a script: absent from {@link ToolHost.listTools}, serve's listing and every adapter,
   * refused as a direct call). `scriptCallable: false` is the same as `'model'`.
   */
  callers?: ToolCallers;
  /**
   * Computes the description at listing time, for tools whose description depends on other
   * tools. The host calls it once per change of {@link ToolHost.toolsVersion} and reuses the
   * text, so it must depend on nothing else.
   */
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
  /** False for a tool only scripts may call (`callers: 'script'`): left out of the model's listing. */
  readonly modelCallable?: boolean;
  /** Set when the tool's callers were narrowed explicitly (a built-in's `callers`, a server's config). */
  readonly callers?: Exclude<ToolCallers, 'both'>;
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
   * Gives up on a call whose result never comes back: the call ends `failed`. Milliseconds
   * above 0, `Infinity` for none (anything else is refused, `invalid_request`). Defaults to the
   * host's `callTimeoutMs`.
   */
  timeoutMs?: number;
  /**
   * Aborts this one call: while it is open (waiting for approval or running) it ends `aborted`
   * with the signal's reason, and its work is stopped as on any abort — a built-in's
   * `ctx.signal` aborts, a server is sent `notifications/cancelled`, a `code_execution` stops
   * its script. A signal already aborted when `dispatch` is called opens nothing: the call is
   * refused (`aborted`). Works for model and script calls alike; the listener is removed at the
   * call's terminal, so one signal may serve many calls.
   */
  signal?: AbortSignal;
  /**
   * Told when the call starts waiting for approval; the function it returns is called when
   * the wait ends. `code_execution` passes the script's `pauseClock`, so that a human's wait
   * never counts against the script's time limit.
   */
  onPending?: () => () => void;
  /**
   * Asks for the call's progress. A server tool is sent `_meta.progressToken` and its
   * `notifications/progress` are relayed here; a built-in reports through `ctx.progress`.
   * Called only while the call is open.
   */
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
  /**
   * A call budget shared by several requests (`code_execution` passes one per execution):
   * the host refuses the call (`execution_budget`) once `opened` has reached `limit`, and
   * counts each call that opens. It counts alongside the inference's own budget.
   */
  executionBudget?: ExecutionBudget;
  /**
   * For calls made by scripts, when known: where in the script the call was made. Carried in
   * the approval request of a call that must wait for its own decision.
   */
  callSite?: CallSite;
  /**
   * Members for a server tool's `tools/call` `params._meta`, passed to the server as given (a
   * gateway forwards its client's request `_meta` this way). An installed instrumentation's
   * members (trace context) replace those of the same name; the progress token is the host's.
   */
  meta?: Record<string, unknown>;
  /**
   * A durable resume (docs/durable.md): the call continues the paused call of this id, whose
   * opening was ended at the pause, so it is announced again under the same id. Ignored (a new
   * id is minted) while a call of that id is open on this host.
   */
  resumesToolCallId?: string;
}

/** A budget of calls shared by the requests that carry it; `opened` is the host's count. */
export interface ExecutionBudget {
  readonly limit: number;
  opened: number;
}

/** A place in a script: 1-based line, and column when the engine knows it. */
export interface CallSite {
  line: number;
  column?: number;
}

/** A call as an instrumentation sees it, between its opening and its terminal. */
export interface InstrumentedCall {
  readonly toolCallId: string;
  readonly tool: RegisteredTool;
  readonly inference: { readonly inferenceId: string; readonly conversationId: string };
  readonly origin: CallOrigin;
  /** The arguments as the tool receives them. */
  readonly args: Record<string, unknown>;
  readonly modelCallId: string | undefined;
  readonly parentToolCallId: string | undefined;
  /** `performance.now()` at `started` (at `pending` until the call is approved). */
  readonly startedAt: number;
  /** `performance.now()` at the terminal (0 before). */
  readonly endedAt: number;
}

/**
 * Optional instrumentation of the dispatch path, installed with `ToolHost.instrument` (the
 * OpenTelemetry exporter in src/telemetry/ is one). It is told each phase directly — no event
 * object is built for it — and never delays a call: every method is synchronous. Without
 * one, dispatch pays a single `undefined` check per phase.
 */
export interface CallInstrumentation {
  /** The call opened, synchronously inside `dispatch`; `pending` when it waits for approval. */
  opened(call: InstrumentedCall, pending: boolean): void;
  /** A pending call was approved; `startedAt` is now. */
  approved(call: InstrumentedCall): void;
  /** The call's one terminal, with what the caller receives; `refusal` for a refused approval. */
  ended(
    call: InstrumentedCall,
    phase: 'completed' | 'failed' | 'aborted',
    result: ToolResult,
    reason: string | undefined,
    refusal: DispatchOutcome['refusal'],
  ): void;
  /**
   * Runs a call's execution — a built-in's handler, or the request to its server — and returns
   * what `run` returns; lets the instrumentation make ambient context (the call's span) active.
   */
  execute<T>(call: InstrumentedCall, run: () => T): T;
  /** `_meta` members for a server tool's `tools/call` request (trace context), or undefined. */
  requestMeta(call: InstrumentedCall): Record<string, unknown> | undefined;
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
  /** Script calls: the model's id for the owning `code_execution` call, when it gave one. */
  parentModelCallId?: string;
  /** Script calls: where in the script this call was made, when the runtime captured it. */
  callSite?: CallSite;
  /**
   * `sha256:<hex>` of the canonical JSON of `input` (src/host/arguments-digest.ts) when the
   * person was asked. The call runs only if its arguments still have this digest once approved.
   */
  argumentsDigest: string;
}

/**
 * A gate's answer for one call: approved or not, with a reason the refused call's result
 * carries. `argumentsDigest`, when given, is the digest of the arguments the person was shown:
 * the call runs only if it equals the request's.
 */
export type ApprovalDecision = boolean | { approved: boolean; reason?: string; argumentsDigest?: string };

/** One tool a script references, as the up-front approval request lists it. */
export interface BatchApprovalTool {
  tool: string;
  classes: readonly string[];
  serverId?: string;
  /** 1-based script lines where the tool is referenced. */
  lines: number[];
}

/**
 * The one up-front request for a script: every tool it references that the gate requires,
 * with the owning model call.
 */
export interface BatchApprovalRequest {
  conversationId: string;
  inferenceId: string;
  /** The `code_execution` call's `toolCallId`. */
  parentToolCallId: string;
  /** The model's id for the `code_execution` call, when it gave one. */
  modelCallId?: string;
  language: string;
  tools: BatchApprovalTool[];
  /** The exact script that will run (after normalization: what the engine is given). */
  code: string;
  /** `sha256:<hex>` of `code` as UTF-8. */
  codeDigest: string;
}

/** How long an up-front approval lasts: this execution, or the conversation until revoked. */
export type ApprovalScope = 'execution' | 'conversation';

/** A gate's answer to an up-front request for a script: approved or not, for this execution (default) or the conversation. */
export type BatchApprovalDecision = boolean | { approved: boolean; scope?: ApprovalScope; reason?: string; codeDigest?: string };

/**
 * A gate the host controls (RFC-007 `pending`): calls it requires wait, reported `pending`
 * (metadata only), until `decide` resolves. Approved calls then report `started` and run;
 * refused ones end `aborted` and never run.
 */
export interface ApprovalGate {
  /** Synchronously: must this call wait for a decision? */
  required(call: Omit<ApprovalRequest, 'toolCallId' | 'argumentsDigest'>): boolean;
  /** The decision. `signal` aborts when the call is aborted while it waits (stream end, shutdown). */
  decide(call: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
  /**
   * Optional: one decision for every gated tool a script references, asked before the script
   * runs. Approved, those tools' calls run without `pending` for the execution (or, with
   * `scope: 'conversation'`, until revoked). A gate without it is asked call by call.
   */
  decideBatch?(request: BatchApprovalRequest, signal: AbortSignal): Promise<BatchApprovalDecision>;
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
  /** The request itself is malformed (a `timeoutMs` that is not a number above 0). */
  | 'invalid_request'
  /** The inference's call budget was spent. */
  | 'budget_exceeded'
  /** The request's execution budget (one `code_execution` run's calls) was spent. */
  | 'execution_budget'
  /** A script call whose parent call (its `code_execution`) had already ended. */
  | 'parent_ended'
  /** The tool's `callers` leave out this caller: a script-only tool called directly, or a model-only tool called from a script. */
  | 'caller_not_allowed'
  /** Refused by the approval gate after `pending`: the call opened, and ended `aborted`. */
  | 'approval_refused'
  /** The request's `signal` was already aborted: nothing opened. */
  | 'aborted';

/** What {@link ToolHost.dispatch} resolves to (it never rejects): how the call ended and the result the model sees. */
export interface DispatchOutcome {
  status: DispatchStatus;
  /** What the framework hands back to the model. Always present, an error result when not completed. */
  result: ToolResult;
  /** Set once the call opened. */
  toolCallId?: string;
  refusal?: { code: RefusalCode; message: string };
  durationMs?: number;
}
