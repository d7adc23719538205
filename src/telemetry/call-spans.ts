/**
 * One `execute_tool` span per call that opened, driven by the host's instrumentation hooks
 * (no event objects are built for it), and what makes the span useful beyond itself: it is
 * the active context while the tool runs, and its trace context rides on a server tool's
 * request.
 *
 * Parents: a script's call is the child of its `code_execution` call (by the parent id the
 * host knows — never by ambient context, which inside a sandbox's message handlers belongs to
 * whoever spawned the sandbox); a model's call is the child of the context active when
 * `dispatch` was called (the host opens calls synchronously inside `dispatch`), so an
 * embedding framework's own `invoke_agent` / `chat` span becomes its parent.
 *
 * Timing: the span covers the call from its opening to its terminal. A gated call's approval
 * wait is inside it, marked by the `requested` and `decided` events, while the duration metric
 * counts execution only, as the host's `durationMs` does.
 *
 * Spans are ended after the current turn of the event loop, with the terminal's own instant:
 * a batching span processor serializes a whole batch inside the `end()` that fills it, and
 * that must never delay the call whose terminal it was (tool execution never waits on an
 * observer, and an exporter is one).
 */
import { context, diag, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { CallInstrumentation, DispatchOutcome, InstrumentedCall, ToolResult } from '../host/types.ts';
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
  GEN_AI_CONVERSATION_ID,
  GEN_AI_TOOL_CALL_ARGUMENTS,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_CALL_RESULT,
  GEN_AI_TOOL_NAME,
  INFERENCE_ID,
  MCP_PROTOCOL_VERSION,
  MODEL_CALL_ID,
  PARENT_CALL_ID,
  REFUSAL_CODE,
  REFUSAL_MESSAGE,
  RESULT_ALTERED,
  RESULT_WITHHELD,
} from './attributes.ts';
import { captureBounded } from './content.ts';
import type { ToolMetrics } from './metrics.ts';
import { ToolShapes } from './tool-shapes.ts';
import { traceMeta } from './trace-context.ts';
import { redactingSpan } from './redact.ts';

/** A call's span between its opening and its terminal. */
interface TracedCall {
  readonly span: Span;
  /** The parent's context with this span set: active while the call runs, and its children's parent. */
  readonly context: Context;
  /** False while the call waits for approval (and for good if it never runs). */
  started: boolean;
}

/**
 * Ended calls remembered as parents, for a script call that opens after its parent ended
 * (a `code_execution` whose safety timeout gave up while its script still runs). Only tools
 * scripts cannot call are remembered: they are the ones that run scripts.
 */
const RECENT_PARENTS = 256;

const APPROVAL_GRANTED: Attributes = Object.freeze({ [APPROVED]: true });
const APPROVAL_REFUSED: Attributes = Object.freeze({ [APPROVED]: false });

export interface CallSpansOptions {
  captureContent: boolean;
  /** Each tool's description on its spans (`gen_ai.tool.description`). */
  toolDescriptions?: boolean;
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

export class CallSpans implements CallInstrumentation {
  private readonly open = new Map<string, TracedCall>();
  private readonly shapes: ToolShapes;
  private readonly recent = new Map<string, Context>();
  private idleWaiters: (() => void)[] = [];
  /** Spans to end, with their end instants, flat: [span, at, span, at, …]. */
  private toEnd: (Span | number)[] = [];
  private endScheduled = false;
  private readonly endQueued = () => this.flush();

  constructor(
    private readonly tracer: Tracer,
    private readonly metrics: ToolMetrics,
    private readonly options: CallSpansOptions,
  ) {
    this.shapes = new ToolShapes(options.toolDescriptions === true);
  }

  /** Calls whose span is open now. */
  get openCount(): number {
    return this.open.size;
  }

  // The hooks run inside dispatch: a failing tracer or meter must never fail a call, so each
  // hook reports its error on the OpenTelemetry diagnostic channel and the call goes on.
  opened(call: InstrumentedCall, pending: boolean): void {
    try {
      this.openSpan(call, pending);
    } catch (error) {
      failed('opening a span', error);
    }
  }

  approved(call: InstrumentedCall): void {
    try {
      this.markApproved(call);
    } catch (error) {
      failed('recording an approval', error);
    }
  }

  ended(call: InstrumentedCall, phase: 'completed' | 'failed' | 'aborted', result: ToolResult, reason: string | undefined, refusal: DispatchOutcome['refusal']): void {
    try {
      this.endSpan(call, phase, result, reason, refusal);
    } catch (error) {
      failed('ending a span', error);
    }
  }

  private openSpan(call: InstrumentedCall, pending: boolean): void {
    const parentId = call.parentToolCallId;
    // Unknown script parent (instrumented after it opened): a root, never whatever happens to be ambient.
    const parent = parentId === undefined ? context.active() : (this.open.get(parentId)?.context ?? this.recent.get(parentId) ?? ROOT_CONTEXT);
    const tool = call.tool;
    const shape = this.shapes.of(tool);
    // All attributes known at the start go in one object, so that a sampler sees them and the
    // SDK takes them in one pass.
    const attributes: Attributes = { ...shape.attributes };
    attributes[GEN_AI_TOOL_CALL_ID] = call.toolCallId;
    attributes[GEN_AI_CONVERSATION_ID] = call.inference.conversationId;
    attributes[CALL_ORIGIN] = call.origin;
    attributes[INFERENCE_ID] = call.inference.inferenceId;
    if (tool.serverId !== undefined) {
      // Asked per call: a reconnect may agree on another version without re-registering the tool.
      const version = this.options.protocolVersion(tool.serverId);
      if (version !== undefined) attributes[MCP_PROTOCOL_VERSION] = version;
    }
    if (parentId !== undefined) attributes[PARENT_CALL_ID] = parentId;
    if (call.modelCallId !== undefined && call.modelCallId !== call.toolCallId) attributes[MODEL_CALL_ID] = call.modelCallId;
    // Host instants are performance.now() readings, which the API accepts as times.
    const span = this.tracer.startSpan(shape.spanName, { kind: shape.kind, attributes, startTime: call.startedAt }, parent);
    // Content is redacted and serialized only for a span that will be recorded (a sampler may drop it).
    if (span.isRecording()) {
      if (pending) span.addEvent(EVENT_APPROVAL_REQUESTED, call.startedAt);
      else if (this.options.captureContent) span.setAttributes(this.capturedArguments(call.args));
    }
    this.open.set(call.toolCallId, { span, context: trace.setSpan(parent, span), started: !pending });
  }

  private markApproved(call: InstrumentedCall): void {
    const traced = this.open.get(call.toolCallId);
    if (traced === undefined) return;
    traced.started = true;
    if (!traced.span.isRecording()) return;
    traced.span.addEvent(EVENT_APPROVAL_DECIDED, APPROVAL_GRANTED, call.startedAt);
    if (this.options.captureContent) traced.span.setAttributes(this.capturedArguments(call.args));
  }

  private endSpan(call: InstrumentedCall, phase: 'completed' | 'failed' | 'aborted', result: ToolResult, reason: string | undefined, refusal: DispatchOutcome['refusal']): void {
    const traced = this.open.get(call.toolCallId);
    if (traced === undefined) return;
    this.open.delete(call.toolCallId);
    const at = call.endedAt;
    const type = errorType(phase, result.isError === true, reason, refusal?.code);
    const span = traced.span;
    // A span a sampler dropped records nothing, and its end exports nothing: it ends now.
    if (!span.isRecording()) span.end(at);
    else {
      if (type === 'approval_refused') span.addEvent(EVENT_APPROVAL_DECIDED, APPROVAL_REFUSED, at);
      if (type === undefined && !this.options.captureContent) span.setAttribute(CALL_OUTCOME, phase);
      else {
        const attributes: Attributes = { [CALL_OUTCOME]: phase };
        if (type !== undefined) attributes[ERROR_TYPE] = type;
        if (this.options.captureContent && phase === 'completed') {
          captureBounded(attributes, result, this.options.maxContentBytes, { attribute: GEN_AI_TOOL_CALL_RESULT, altered: RESULT_ALTERED, withheld: RESULT_WITHHELD });
        }
        span.setAttributes(attributes);
        if (type !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: reason ?? (type === 'tool_error' ? 'the tool returned an error result' : type) });
      }
      this.toEnd.push(span, at);
      if (!this.endScheduled) {
        this.endScheduled = true;
        setImmediate(this.endQueued);
      }
    }
    if (traced.started) this.metrics.recordDuration((at - call.startedAt) / 1000, this.shapes.of(call.tool).durationAttributes(phase, type));
    if (call.tool.scriptCallable === false) {
      this.recent.set(call.toolCallId, traced.context);
      if (this.recent.size > RECENT_PARENTS) this.recent.delete(this.recent.keys().next().value!);
    }
    if (this.open.size === 0 && this.idleWaiters.length > 0) this.wakeIdle();
  }

  execute<T>(call: InstrumentedCall, run: () => T): T {
    const traced = this.open.get(call.toolCallId);
    return traced === undefined ? run() : context.with(traced.context, run);
  }

  requestMeta(call: InstrumentedCall): Record<string, unknown> | undefined {
    const traced = this.open.get(call.toolCallId);
    if (traced === undefined) return undefined;
    try {
      return traceMeta(traced.context);
    } catch (error) {
      failed('injecting trace context', error);
      return undefined;
    }
  }

  /** The host's `refused` listener: counted, and marked on the span the call would have joined. */
  readonly onRefused = (info: RefusedCall): void => {
    try {
      this.recordRefusal(info);
    } catch (error) {
      failed('recording a refusal', error);
    }
  };

  private recordRefusal(info: RefusedCall): void {
    const script = info.parentToolCallId !== undefined;
    this.metrics.recordRefusal(info.code, script ? 'script' : 'model');
    // `refused` is emitted synchronously inside dispatch, so for a model call the active span is the caller's.
    // The caller's own span is not one of ours: its event is redacted here.
    const found = script ? this.open.get(info.parentToolCallId!)?.span : trace.getSpan(context.active());
    const span = found === undefined ? undefined : redactingSpan(found);
    if (span?.isRecording()) span.addEvent(EVENT_CALL_REFUSED, { [GEN_AI_TOOL_NAME]: info.name, [REFUSAL_CODE]: info.code, [REFUSAL_MESSAGE]: info.message });
  }

  private capturedArguments(input: unknown): Attributes {
    const attributes: Attributes = {};
    captureBounded(attributes, input, this.options.maxContentBytes, { attribute: GEN_AI_TOOL_CALL_ARGUMENTS, altered: ARGUMENTS_ALTERED, withheld: ARGUMENTS_WITHHELD });
    return attributes;
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Ends the spans of calls that already ended (normally done after the current event-loop turn). */
  flush(): void {
    this.endScheduled = false;
    const queue = this.toEnd;
    if (queue.length === 0) return;
    this.toEnd = [];
    for (let i = 0; i < queue.length; i += 2) {
      try {
        (queue[i] as Span).end(queue[i + 1] as number);
      } catch (error) {
        failed('ending a span', error);
      }
    }
  }

  /** Resolves once no span is open. */
  idle(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Ends every open span now, marked as detached (the instrumentation is going away). */
  detach(): void {
    this.flush();
    for (const traced of this.open.values()) {
      traced.span.setAttribute(DETACHED, true);
      traced.span.end();
    }
    this.open.clear();
    this.recent.clear();
    this.wakeIdle();
  }
}

function failed(what: string, error: unknown): void {
  diag.error(`toolcell telemetry: ${what} failed; the call is not affected`, error);
}
