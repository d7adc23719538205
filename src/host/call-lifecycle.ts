/**
 * The calls of the dispatch path between opening and terminal: open (`pending` or
 * `started`), the approval wait, execution with its safety timeout, and exactly one terminal
 * — to observers through the lifecycle emitter and, unfiltered, to in-process listeners.
 * Outcomes that arrive after a call ended are consumed here and reported as late.
 */
import { argumentsDigest } from './arguments-digest.ts';
import { CallIdMinter } from './ids.ts';
import { CallDeadlines } from './call-deadlines.ts';
import { OpenCall, type InferenceRecord } from './open-call.ts';
import { errorResult } from './results.ts';
import { abortReason } from './abort-reason.ts';
import { normalizeToolResult } from './normalize-result.ts';
import type { ApprovalGrants } from './approval-grants.ts';
import type { ApprovalGate, CallInstrumentation, DispatchOutcome, DispatchRequest, HostToolContext, ProgressUpdate, RegisteredTool, ToolResult } from './types.ts';
import type { LifecycleEmitter } from '../lifecycle/emitter.ts';
import type { CallFacts } from '../lifecycle/decide.ts';
import { PARENT_META_KEY, RESUMED_META_KEY, type HostLifecycleEvent, type LifecycleIdentity, type TerminalPhase } from '../lifecycle/events.ts';
import type { CallToolOptions, McplConnection } from '../mcpl/connection.ts';

/** Where the call lifecycle reports to (the ToolHost's events). */
export interface CallEventSink {
  /** False when nobody listens, so events are not even built. */
  wantsLifecycle(): boolean;
  lifecycle(event: HostLifecycleEvent): void;
  late(info: { toolCallId: string; tool: string; kind: 'result' | 'error' }): void;
  /** A caller's `onProgress` threw; the call goes on. */
  progressFailed(info: { toolCallId: string; tool: string; error: unknown }): void;
}

export interface CallLifecycleOptions {
  callTimeoutMs: number;
  approvalGate?: ApprovalGate;
  /** Standing approvals: a call they cover runs without asking the gate. */
  grants: ApprovalGrants;
  /** Longest wait for the gate's answer; past it the call is declined. */
  approvalTimeoutMs?: number;
}

const noProgress = (): void => undefined;

export class CallLifecycle {
  private readonly ids = new CallIdMinter();
  /** Every executing call's safety timeout, on one timer. */
  private readonly deadlines = new CallDeadlines<OpenCall>((call) => {
    const timeoutMs = call.deadlineLane;
    // Giving up also stops the work: a built-in sees its signal abort, a server is told, a script is killed.
    if (this.finish(call, 'failed', errorResult(`Tool ${call.tool.name} timed out after ${timeoutMs} ms`), 'timeout')) {
      call.abort(new Error(`timed out after ${timeoutMs} ms`));
    }
  });
  /** Calls between opening and terminal, by toolCallId. */
  readonly open = new Map<string, OpenCall>();
  /**
   * Script calls waiting for approval, by their parent's toolCallId: the parent's terminal
   * aborts them, so an answer that comes after their script's end runs nothing.
   */
  private readonly pendingByParent = new Map<string, Set<OpenCall>>();
  /**
   * Calls whose script runs on past their terminal (a background `code_execution`, see
   * code-execution/background/): until released, their children may still open and their
   * approval waits are not ended by the parent's terminal. At most one entry per running
   * background script, so bounded by the host's background cap.
   */
  private readonly outliving = new Set<string>();
  /** Installed by `ToolHost.instrument`; undefined (the common case) costs one check per call. */
  instrumentation: CallInstrumentation | undefined;

  constructor(
    private readonly emitter: LifecycleEmitter,
    /** The connection for a server's call in a conversation (a gateway may route per client): maybe still connecting. */
    private readonly connection: (serverId: string, conversationId: string) => McplConnection | Promise<McplConnection> | undefined,
    private readonly sink: CallEventSink,
    private readonly options: CallLifecycleOptions,
  ) {}

  /** Opens a call that passed every refusal site and runs it (after approval, when gated). */
  run(request: DispatchRequest, tool: RegisteredTool, inference: InferenceRecord, args: Record<string, unknown>): Promise<DispatchOutcome> {
    const origin = request.parentToolCallId ? 'script' : 'model';
    const gate = this.options.approvalGate;
    const gated = gate !== undefined
      && !this.options.grants.covers(inference.conversationId, request.parentToolCallId, tool.name)
      && gate.required(this.approvalFacts(request, tool, inference, args, origin));
    const call = this.openCall(request, tool, inference, args, gated);
    if (request.signal !== undefined) this.followSignal(call, request.signal);
    if (gated) {
      if (call.parentToolCallId !== undefined) {
        const siblings = this.pendingByParent.get(call.parentToolCallId) ?? new Set<OpenCall>();
        siblings.add(call);
        this.pendingByParent.set(call.parentToolCallId, siblings);
      }
      void this.awaitApproval(call, request, gate);
    }
    else this.execute(call, request.timeoutMs ?? this.options.callTimeoutMs, request.onProgress, request.meta);
    return call.outcome;
  }

  /**
   * Whether `toolCallId` names a call this host opened that has since ended: a script call
   * naming it as parent would open after its parent's terminal, so it is refused.
   */
  hasEnded(toolCallId: string): boolean {
    return !this.open.has(toolCallId) && this.ids.issued(toolCallId) && !this.outliving.has(toolCallId);
  }

  /** Lets the children of `toolCallId` outlive its terminal until the returned release is called. */
  outlive(toolCallId: string): () => void {
    this.outliving.add(toolCallId);
    return () => {
      // The script has stopped: its calls still waiting for a person are declined, never run.
      if (this.outliving.delete(toolCallId) && !this.open.has(toolCallId)) this.endPendingChildren(toolCallId);
    };
  }

  /** Ends matching open calls as `aborted`. Returns how many. */
  abortWhere(match: (call: OpenCall) => boolean, reason: string): number {
    let count = 0;
    for (const call of [...this.open.values()]) {
      if (!match(call)) continue;
      if (this.finish(call, 'aborted', errorResult(`Tool call aborted: ${reason}`), reason)) {
        call.abort(new Error(reason));
        count += 1;
      }
    }
    return count;
  }

  /**
   * The caller's own signal for this call: its abort ends the call `aborted` and stops its work,
   * as a stream end does for model calls. The listener goes at the terminal (see OpenCall.end).
   */
  private followSignal(call: OpenCall, signal: AbortSignal): void {
    const onAbort = (): void => {
      const reason = abortReason(signal.reason);
      if (this.finish(call, 'aborted', errorResult(`Tool call aborted: ${reason}`), reason)) call.abort(new Error(reason));
    };
    // Aborted since the refusal check (a lifecycle listener may run in between): end it now.
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    call.detachSignal = () => signal.removeEventListener('abort', onAbort);
  }

  private approvalFacts(request: DispatchRequest, tool: RegisteredTool, inference: InferenceRecord, args: Record<string, unknown>, origin: 'model' | 'script') {
    return {
      tool: tool.name,
      classes: tool.classes,
      ...(tool.serverId !== undefined ? { serverId: tool.serverId } : {}),
      input: args,
      inferenceId: inference.inferenceId,
      conversationId: inference.conversationId,
      origin,
      ...(request.modelCallId !== undefined ? { modelCallId: request.modelCallId } : {}),
      ...(request.parentToolCallId !== undefined ? { parentToolCallId: request.parentToolCallId } : {}),
    };
  }

  /** What only the decision needs: the owning model call and the script line of a script's call. */
  private ownerFacts(request: DispatchRequest): { parentModelCallId?: string; callSite?: DispatchRequest['callSite'] } {
    const parentModelCallId = request.parentToolCallId !== undefined ? this.open.get(request.parentToolCallId)?.modelCallId : undefined;
    return {
      ...(parentModelCallId !== undefined ? { parentModelCallId } : {}),
      ...(request.callSite !== undefined ? { callSite: { ...request.callSite } } : {}),
    };
  }

  /**
   * A gated call waits, `pending`, for the gate's decision; the wait is not part of its
   * duration nor of its safety timeout. Approved: `started`, then it runs. Refused (or the gate
   * failed): `aborted`, and it never runs.
   */
  private async awaitApproval(call: OpenCall, request: DispatchRequest, gate: ApprovalGate): Promise<void> {
    const resume = request.onPending?.();
    let approved = false;
    let reason = 'refused';
    const limit = this.options.approvalTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    // The approval is bound to these exact arguments: digested now, checked again before the tool runs.
    let digest: string | undefined;
    try {
      digest = argumentsDigest(call.args);
      const asked = gate.decide(
        { toolCallId: call.toolCallId, ...this.approvalFacts(request, call.tool, call.inference, call.args, call.origin), ...this.ownerFacts(request), argumentsDigest: digest },
        call.signal,
      );
      const decision = limit === undefined ? await asked : await Promise.race([
        asked,
        new Promise<{ approved: false; reason: string }>((resolve) => {
          timer = setTimeout(() => {
            const why = `no answer within ${limit} ms`;
            // The gate stops asking (its signal aborts); the call is declined.
            call.abort(new Error(`the approval was not answered within ${limit} ms`));
            resolve({ approved: false, reason: why });
          }, limit);
        }),
      ]);
      approved = typeof decision === 'boolean' ? decision : decision.approved === true;
      if (typeof decision === 'object' && decision.reason) reason = decision.reason;
      const shown = typeof decision === 'object' && 'argumentsDigest' in decision ? decision.argumentsDigest : undefined;
      if (approved && shown !== undefined && shown !== digest) {
        approved = false;
        reason = `the approval was given for other arguments (${shown}, not ${digest}); nothing ran`;
      }
    } catch (error) {
      reason = digest === undefined
        ? `the arguments have no canonical JSON to bind an approval to: ${(error as Error)?.message ?? String(error)}`
        : `the approval gate failed: ${(error as Error)?.message ?? String(error)}`;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      resume?.();
    }
    if (!call.isOpen) return; // aborted while pending (stream end, interrupt, its parent's end, shutdown)
    if (approved) {
      // Whoever still holds the arguments (the caller, the gate) may have changed them meanwhile.
      let now: string | undefined;
      try {
        now = argumentsDigest(call.args);
      } catch (error) {
        now = `none (${(error as Error).message})`;
      }
      if (now !== digest) {
        approved = false;
        reason = `the arguments changed after they were put for approval (approved ${digest}, now ${now}); nothing ran`;
      }
    }
    this.unpend(call);
    if (!approved) {
      const message = `Tool call to ${call.tool.name} was not approved: ${reason}`;
      this.finish(call, 'aborted', errorResult(message), 'not approved', { code: 'approval_refused', message });
      return;
    }
    call.markStarted();
    this.instrumentation?.approved(call);
    this.emitter.start(call.emitted);
    if (this.sink.wantsLifecycle()) this.sink.lifecycle({ ...this.eventBase(call), phase: 'started', input: call.args, at: call.startedAt });
    this.execute(call, request.timeoutMs ?? this.options.callTimeoutMs, request.onProgress, request.meta);
  }

  private openCall(request: DispatchRequest, tool: RegisteredTool, inference: InferenceRecord, args: Record<string, unknown>, pending: boolean): OpenCall {
    const resumed = request.resumesToolCallId;
    const toolCallId = resumed !== undefined && !this.open.has(resumed) ? resumed : this.ids.next(request.modelCallId);
    // Built member by member rather than with conditional spreads: this runs for every call,
    // and a spread past an object literal's first member copies through the runtime's slow path.
    // The identity's member order is its JSON's (lifecycleHead serializes it as it is).
    const identity: LifecycleIdentity = {
      toolCallId,
      inferenceId: inference.inferenceId,
      conversationId: inference.conversationId,
      tool: tool.name,
      class: tool.classes,
    };
    const facts: CallFacts = { tool: tool.name, classes: tool.classes, conversationId: inference.conversationId, input: args };
    if (tool.kind === 'server') {
      identity.serverId = facts.serverId = tool.serverId!;
      identity.serverTool = facts.serverTool = tool.serverTool!;
    }
    if (request.parentToolCallId) identity._meta = { [PARENT_META_KEY]: request.parentToolCallId };
    // Announced again after a durable pause, under the id it paused with: marked so (docs/rfc/durable-runs.md).
    if (resumed === toolCallId) identity._meta = { ...identity._meta, [RESUMED_META_KEY]: true };
    const emitted = this.emitter.open(identity, facts, pending);
    const origin = request.parentToolCallId ? 'script' : 'model';
    const call = new OpenCall(toolCallId, tool, inference, origin, args, emitted, request.modelCallId, request.parentToolCallId);
    call.pending = pending;
    this.open.set(toolCallId, call);
    this.instrumentation?.opened(call, pending);
    if (this.sink.wantsLifecycle()) {
      this.sink.lifecycle(pending ? { ...this.eventBase(call), phase: 'pending', at: call.startedAt } : { ...this.eventBase(call), phase: 'started', input: args, at: call.startedAt });
    }
    return call;
  }

  private eventBase(call: OpenCall): Omit<HostLifecycleEvent, 'phase' | 'at'> {
    return {
      toolCallId: call.toolCallId,
      inferenceId: call.inference.inferenceId,
      conversationId: call.inference.conversationId,
      tool: call.tool.name,
      class: call.tool.classes,
      ...(call.tool.kind === 'server' ? { serverId: call.tool.serverId!, serverTool: call.tool.serverTool! } : {}),
      origin: call.origin,
      ...(call.modelCallId !== undefined ? { modelCallId: call.modelCallId } : {}),
      ...(call.parentToolCallId !== undefined ? { parentToolCallId: call.parentToolCallId } : {}),
    };
  }

  /**
   * The caller's progress listener, guarded: reports reach it only while the call is open,
   * in the MCP shape and nothing else, and a listener that throws never fails the call.
   */
  private progressRelay(call: OpenCall, onProgress: DispatchRequest['onProgress']): ((p: ProgressUpdate) => void) | undefined {
    if (!onProgress) return undefined;
    return (p) => {
      if (!call.isOpen) return;
      const update: ProgressUpdate = {
        progress: p.progress,
        ...(typeof p.total === 'number' ? { total: p.total } : {}),
        ...(typeof p.message === 'string' ? { message: p.message } : {}),
      };
      try {
        onProgress(update);
      } catch (error) {
        this.sink.progressFailed({ toolCallId: call.toolCallId, tool: call.tool.name, error });
      }
    };
  }

  private execute(call: OpenCall, timeoutMs: number, onProgress?: DispatchRequest['onProgress'], meta?: DispatchRequest['meta']): void {
    const tool = call.tool;
    const progress = this.progressRelay(call, onProgress);
    let pending: Promise<ToolResult>;
    try {
      if (tool.kind === 'host') {
        // Progress reported after the terminal belongs to no call any more: dropped.
        const ctx = new CallContext(call, progress);
        const hooks = this.instrumentation;
        pending = hooks === undefined ? tool.handler!(call.args, ctx) : instrumentedHandler(hooks, call, ctx);
      } else {
        const connection = this.connection(tool.serverId!, call.inference.conversationId);
        if (!connection) throw new Error(`server ${tool.serverId} is gone`);
        // The SDK's own timeout sits past ours so the host's timer decides, and the SDK still
        // cleans up. The call's signal is the request's: aborting the call (stream end,
        // interrupt, its safety timeout, shutdown) sends `notifications/cancelled` downstream.
        const options: CallToolOptions = {
          signal: call.signal,
          ...(meta ? { meta } : {}),
          ...(progress ? { onProgress: progress } : {}),
          onLate: (kind) => this.late(call, kind),
          owner: {
            conversationId: call.inference.conversationId,
            toolCallId: call.toolCallId,
            modelCallId: call.modelCallId,
            parentToolCallId: call.parentToolCallId,
            origin: call.origin,
          },
        };
        const hooks = this.instrumentation;
        const send = (c: McplConnection): Promise<ToolResult> =>
          hooks === undefined ? c.callTool(tool.serverTool!, call.args, timeoutMs + 1000, options) : instrumentedServerCall(hooks, call, c, timeoutMs + 1000, options);
        pending = connection instanceof Promise ? connection.then(send) : send(connection);
      }
    } catch (error) {
      // Dispatch threw after the call opened: it may have done work, so this is `failed`, not a refusal.
      const message = (error as Error)?.message ?? String(error);
      this.finish(call, 'failed', errorResult(`Tool ${tool.name} failed: ${message}`), message);
      return;
    }
    this.deadlines.add(call, timeoutMs);
    Promise.resolve(pending).then(
      (raw) => {
        const normalized = normalizeToolResult(raw);
        const ended = normalized.ok
          ? this.finish(call, 'completed', normalized.result)
          : this.finish(call, 'failed', errorResult(`Tool ${tool.name} returned an invalid result: ${normalized.message}`), normalized.message);
        if (!ended) this.late(call, 'result');
      },
      (error: unknown) => {
        const message = (error as Error)?.message ?? String(error);
        if (this.finish(call, 'failed', errorResult(`Tool ${tool.name} failed: ${message}`), message)) return;
        // A server call we cancelled rejects with our own cancellation, which is not an outcome;
        // the server's answer, should one still come, is reported through `onLate`.
        if (tool.kind === 'server' && call.signal.aborted) return;
        this.late(call, 'error');
      },
    );
  }

  private unpend(call: OpenCall): void {
    if (call.parentToolCallId === undefined) return;
    const siblings = this.pendingByParent.get(call.parentToolCallId);
    if (siblings?.delete(call) && siblings.size === 0) this.pendingByParent.delete(call.parentToolCallId);
  }

  /** A call's terminal ends the approval waits of its script's calls: aborted, never run. */
  private endPendingChildren(parentToolCallId: string): void {
    const children = this.pendingByParent.get(parentToolCallId);
    if (children === undefined) return;
    this.pendingByParent.delete(parentToolCallId);
    for (const child of children) {
      const message = `Tool call to ${child.tool.name} was not run: its parent call ${parentToolCallId} ended while it waited for approval.`;
      child.abort(new Error(message));
      this.finish(child, 'aborted', errorResult(message), 'parent ended');
    }
  }

  private late(call: OpenCall, kind: 'result' | 'error'): void {
    this.sink.late({ toolCallId: call.toolCallId, tool: call.tool.name, kind });
  }

  /** Ends a call once: terminal to observers, event in-process. False when it had already ended. */
  private finish(call: OpenCall, phase: TerminalPhase, result: ToolResult, reason?: string, refusal?: DispatchOutcome['refusal']): boolean {
    const wasPending = call.pending;
    const durationMs = call.end(phase, result, refusal);
    if (durationMs === undefined) return false;
    // A deadline's length is above 0 (refused otherwise), so 0 means none was started.
    if (call.deadlineLane !== 0) this.deadlines.release(call);
    this.open.delete(call.toolCallId);
    if (wasPending) this.unpend(call);
    const isError = phase === 'completed' ? result.isError === true : undefined;
    // A call that never started has no execution to time: its terminal carries no duration.
    const timed = wasPending ? undefined : durationMs;
    this.emitter.terminal(call.emitted, phase, isError, timed);
    this.instrumentation?.ended(call, phase, result, reason, refusal);
    if (this.sink.wantsLifecycle()) {
      this.sink.lifecycle({
        ...this.eventBase(call),
        phase,
        ...(isError !== undefined ? { isError } : {}),
        ...(timed !== undefined ? { durationMs: timed } : {}),
        ...(reason ? { reason } : {}),
        at: call.endedAt,
      });
    }
    if (!this.outliving.has(call.toolCallId)) this.endPendingChildren(call.toolCallId);
    return true;
  }

}

/**
 * What a host tool's handler receives. A class rather than an object literal per call: the
 * literal's getter made a closure and an accessor pair for every call, and its conditional
 * members went through spreads. Optional members are set only when present, as the literal did.
 */
class CallContext implements HostToolContext {
  readonly toolCallId: string;
  readonly inferenceId: string;
  readonly conversationId: string;
  readonly origin: 'model' | 'script';
  declare readonly parentToolCallId?: string;
  declare readonly modelCallId?: string;
  declare readonly onProgress?: (p: ProgressUpdate) => void;
  readonly progress: (p: ProgressUpdate) => void;
  /** A private field: the handler's context shows what the literal showed, and nothing of the call's state. */
  readonly #call: OpenCall;

  constructor(call: OpenCall, progress: ((p: ProgressUpdate) => void) | undefined) {
    this.#call = call;
    this.toolCallId = call.toolCallId;
    this.inferenceId = call.inference.inferenceId;
    this.conversationId = call.inference.conversationId;
    this.origin = call.parentToolCallId ? 'script' : 'model';
    const self = this as { -readonly [K in keyof HostToolContext]: HostToolContext[K] };
    if (call.parentToolCallId) self.parentToolCallId = call.parentToolCallId;
    if (call.modelCallId !== undefined) self.modelCallId = call.modelCallId;
    if (progress) self.onProgress = progress;
    this.progress = progress ?? noProgress;
  }

  get signal(): AbortSignal {
    return this.#call.signal;
  }
}

// The instrumented paths live outside `execute` so that their closures do not make V8 keep
// `execute`'s locals in a heap context on every call, instrumented or not.
function instrumentedHandler(hooks: CallInstrumentation, call: OpenCall, ctx: HostToolContext): Promise<ToolResult> {
  return hooks.execute(call, () => call.tool.handler!(call.args, ctx));
}

function instrumentedServerCall(
  hooks: CallInstrumentation,
  call: OpenCall,
  connection: McplConnection,
  timeoutMs: number,
  options: CallToolOptions,
): Promise<ToolResult> {
  const meta = hooks.requestMeta(call);
  // The instrumentation's members (its trace context) win over the caller's of the same name.
  return hooks.execute(call, () => connection.callTool(call.tool.serverTool!, call.args, timeoutMs, meta ? { ...options, meta: { ...options.meta, ...meta } } : options));
}
