/**
 * One `execute_tool` span per call that opened, built from the host's in-process lifecycle
 * events, and the host-side hooks that make the span useful beyond itself: it is the active
 * context while the tool runs, and its trace context rides on a server tool's request.
 *
 * Parents: a script's call is the child of its `code_execution` call (by the parent id the
 * host knows — never by ambient context, which inside a sandbox's message handlers belongs to
 * whoever spawned the sandbox); a model's call is the child of the context active when
 * `dispatch` was called (the opening event is emitted synchronously inside `dispatch`), so an
 * embedding framework's own `invoke_agent` / `chat` span becomes its parent.
 *
 * Timing: the span covers the call from its opening to its terminal. A gated call's approval
 * wait is inside it, marked by the `requested` and `decided` events, while the duration metric
 * counts execution only, as the host's `durationMs` does.
 */
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { CallInstrumentation } from '../host/types.ts';
import type { HostLifecycleEvent } from '../lifecycle/events.ts';
import {
  APPROVED,
  ARGUMENTS_ALTERED,
  ARGUMENTS_WITHHELD,
  CALL_ORIGIN,
  CALL_OUTCOME,
  DETACHED,
  ERROR_TYPE,
  errorType,
  EVENT_APPROVAL_DECIDED,
  EVENT_APPROVAL_REQUESTED,
  EVENT_CALL_REFUSED,
  EXECUTE_TOOL,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OPERATION_NAME,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_CALL_RESULT,
  GEN_AI_TOOL_NAME,
  INFERENCE_ID,
  MCP_METHOD_NAME,
  MCP_PROTOCOL_VERSION,
  MODEL_CALL_ID,
  NETWORK_TRANSPORT,
  PARENT_CALL_ID,
  REFUSAL_CODE,
  REFUSAL_MESSAGE,
  RESULT_ALTERED,
  RESULT_WITHHELD,
  SERVER_ID,
  SERVER_TOOL,
  spanName,
  TOOL_CLASSES,
} from './attributes.ts';
import { captureBounded } from './content.ts';
import type { ToolMetrics } from './metrics.ts';
import { traceMeta } from './trace-context.ts';

/** A call's span between its opening and its terminal. */
interface TracedCall {
  readonly span: Span;
  /** The parent's context with this span set: active while the call runs, and its children's parent. */
  readonly context: Context;
  readonly tool: string;
  /** `performance.now()` when execution started; undefined while the call waits for approval. */
  startedAt: number | undefined;
}

/** Ended calls remembered as parents, for a script call that opens after its parent ended. */
const RECENT_PARENTS = 256;

export interface CallSpansOptions {
  captureContent: boolean;
  /** The bound for captured arguments and results: the host's observer input bound. */
  maxContentBytes: number;
  /** The MCP protocol version agreed with a server, for its tools' spans. */
  protocolVersion(serverId: string): string | undefined;
}

/** What a refused call looks like to the instrumentation (the host's `refused` event). */
export interface RefusedCall {
  name: string;
  code: string;
  message: string;
  parentToolCallId?: string;
}

const epoch = (at: number) => performance.timeOrigin + at;

export class CallSpans implements CallInstrumentation {
  private readonly open = new Map<string, TracedCall>();
  private readonly ended = new Map<string, Context>();
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly tracer: Tracer,
    private readonly metrics: ToolMetrics,
    private readonly options: CallSpansOptions,
  ) {}

  /** Calls whose span is open now. */
  get openCount(): number {
    return this.open.size;
  }

  /** The host's `lifecycle` listener. */
  readonly onLifecycle = (event: HostLifecycleEvent): void => {
    switch (event.phase) {
      case 'pending':
        this.opened(event, true);
        return;
      case 'started': {
        const traced = this.open.get(event.toolCallId);
        if (traced === undefined) this.opened(event, false);
        else this.approved(traced, event);
        return;
      }
      default:
        this.finished(event);
    }
  };

  /** The host's `refused` listener: counted, and marked on the span the call would have joined. */
  readonly onRefused = (info: RefusedCall): void => {
    const script = info.parentToolCallId !== undefined;
    this.metrics.recordRefusal(info.code, script ? 'script' : 'model');
    // `refused` is emitted synchronously inside dispatch, so for a model call the active span is the caller's.
    const span = script ? this.open.get(info.parentToolCallId!)?.span : trace.getSpan(context.active());
    span?.addEvent(EVENT_CALL_REFUSED, { [GEN_AI_TOOL_NAME]: info.name, [REFUSAL_CODE]: info.code, [REFUSAL_MESSAGE]: info.message });
  };

  execute<T>(toolCallId: string, run: () => T): T {
    const traced = this.open.get(toolCallId);
    return traced === undefined ? run() : context.with(traced.context, run);
  }

  requestMeta(toolCallId: string): Record<string, unknown> | undefined {
    const traced = this.open.get(toolCallId);
    return traced === undefined ? undefined : traceMeta(traced.context);
  }

  private parentOf(event: HostLifecycleEvent): Context {
    const parentId = event.parentToolCallId;
    if (parentId === undefined) return context.active();
    // Unknown parent (instrumented after it opened): a root, never whatever happens to be ambient.
    return this.open.get(parentId)?.context ?? this.ended.get(parentId) ?? ROOT_CONTEXT;
  }

  private opened(event: HostLifecycleEvent, pending: boolean): void {
    const parent = this.parentOf(event);
    const attributes: Attributes = {
      [GEN_AI_OPERATION_NAME]: EXECUTE_TOOL,
      [GEN_AI_TOOL_NAME]: event.tool,
      [GEN_AI_TOOL_CALL_ID]: event.toolCallId,
      [GEN_AI_CONVERSATION_ID]: event.conversationId,
      [CALL_ORIGIN]: event.origin,
      [INFERENCE_ID]: event.inferenceId,
    };
    if (event.class.length > 0) attributes[TOOL_CLASSES] = [...event.class];
    if (event.serverId !== undefined) {
      attributes[SERVER_ID] = event.serverId;
      attributes[SERVER_TOOL] = event.serverTool;
      attributes[MCP_METHOD_NAME] = 'tools/call';
      attributes[NETWORK_TRANSPORT] = 'pipe';
      const version = this.options.protocolVersion(event.serverId);
      if (version !== undefined) attributes[MCP_PROTOCOL_VERSION] = version;
    }
    if (event.parentToolCallId !== undefined) attributes[PARENT_CALL_ID] = event.parentToolCallId;
    if (event.modelCallId !== undefined && event.modelCallId !== event.toolCallId) attributes[MODEL_CALL_ID] = event.modelCallId;
    if (!pending && this.options.captureContent) this.captureArguments(attributes, event.input);
    const at = epoch(event.at);
    const span = this.tracer.startSpan(
      spanName(event.tool),
      { kind: event.serverId !== undefined ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes, startTime: at },
      parent,
    );
    if (pending) span.addEvent(EVENT_APPROVAL_REQUESTED, at);
    this.open.set(event.toolCallId, { span, context: trace.setSpan(parent, span), tool: event.tool, startedAt: pending ? undefined : event.at });
  }

  private approved(traced: TracedCall, event: HostLifecycleEvent): void {
    traced.startedAt = event.at;
    traced.span.addEvent(EVENT_APPROVAL_DECIDED, { [APPROVED]: true }, epoch(event.at));
    if (this.options.captureContent) {
      const attributes: Attributes = {};
      this.captureArguments(attributes, event.input);
      traced.span.setAttributes(attributes);
    }
  }

  private finished(event: HostLifecycleEvent): void {
    const traced = this.open.get(event.toolCallId);
    if (traced === undefined) return;
    this.open.delete(event.toolCallId);
    const at = epoch(event.at);
    const type = errorType(event);
    const { span } = traced;
    if (traced.startedAt === undefined && type === 'approval_refused') span.addEvent(EVENT_APPROVAL_DECIDED, { [APPROVED]: false }, at);
    const attributes: Attributes = { [CALL_OUTCOME]: event.phase };
    if (type !== undefined) attributes[ERROR_TYPE] = type;
    if (this.options.captureContent && event.phase === 'completed' && event.result !== undefined) {
      captureBounded(attributes, event.result, this.options.maxContentBytes, { attribute: GEN_AI_TOOL_CALL_RESULT, altered: RESULT_ALTERED, withheld: RESULT_WITHHELD });
    }
    span.setAttributes(attributes);
    if (type !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: event.reason ?? (type === 'tool_error' ? 'the tool returned an error result' : type) });
    span.end(at);
    if (traced.startedAt !== undefined) this.metrics.recordDuration(traced.tool, event.phase, (event.at - traced.startedAt) / 1000, type);
    this.ended.set(event.toolCallId, traced.context);
    if (this.ended.size > RECENT_PARENTS) this.ended.delete(this.ended.keys().next().value!);
    if (this.open.size === 0 && this.idleWaiters.length > 0) this.wakeIdle();
  }

  private captureArguments(attributes: Attributes, input: unknown): void {
    captureBounded(attributes, input, this.options.maxContentBytes, { attribute: GEN_AI_TOOL_CALL_ARGUMENTS, altered: ARGUMENTS_ALTERED, withheld: ARGUMENTS_WITHHELD });
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once no span is open. */
  idle(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Ends every open span now, marked as detached (the instrumentation is going away). */
  detach(): void {
    for (const traced of this.open.values()) {
      traced.span.setAttribute(DETACHED, true);
      traced.span.end();
    }
    this.open.clear();
    this.ended.clear();
    this.wakeIdle();
  }
}
