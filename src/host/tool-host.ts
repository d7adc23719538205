/**
 * The tool host an agent framework embeds. One dispatch path for every tool call — the
 * model's own and every call a script makes: refusal sites → open (`started`) → result →
 * exactly one terminal. Lifecycle goes to MCPL observer connections (filtered by grant and
 * filter, never awaited) and, unfiltered, to in-process listeners.
 *
 * @example
 * ```ts
 * const host = new ToolHost();
 * host.registerTool({ name: 'echo', description: 'Echo', inputSchema: { type: 'object' }, classes: ['shell'],
 *   handler: async (args) => textResult(JSON.stringify(args)) });
 * await host.connectServer({ id: 'obs', command: 'node', args: ['observer.mjs'],
 *   policy: { enabledCapabilities: ['toolLifecycle.observe'] } });
 * const stream = host.openStream('conv_1');
 * const inferenceId = stream.beginInference();
 * const outcome = await host.dispatch({ inferenceId, modelCallId: 'toolu_…', name: 'echo', input: { a: 1 } });
 * stream.end(); // aborts this stream's still-open model calls
 * ```
 */
import { EventEmitter } from 'eventemitter3';
import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { ToolClass } from './classes.ts';
import { CallIdMinter } from './ids.ts';
import { OpenCall, type InferenceRecord } from './open-call.ts';
import { ToolRegistry } from './registry.ts';
import { checkRefusal, type RefusalPolicy } from './refusals.ts';
import { errorResult } from './results.ts';
import type { ApprovalGate, DispatchOutcome, DispatchRequest, HostToolDefinition, RegisteredTool, ToolListing, ToolResult } from './types.ts';
import { LifecycleEmitter } from '../lifecycle/emitter.ts';
import { PARENT_META_KEY, type HostLifecycleEvent, type LifecycleIdentity, type TerminalPhase } from '../lifecycle/events.ts';
import { McplConnection } from '../mcpl/connection.ts';
import type { ServerConfig } from '../mcpl/config.ts';
import { normalizeToolResult } from './normalize-result.ts';

export interface ToolHostOptions {
  /** RFC-007 §5.2 input bound in bytes (default 16 KiB). */
  inputBoundBytes?: number;
  /** Gives up on a call whose result never comes back (default 5 minutes): `failed`. */
  callTimeoutMs?: number;
  /** Operator class overrides by model-facing tool name (RFC-008). */
  classOverrides?: Record<string, readonly ToolClass[]>;
  /** Host tool policy: return a message to refuse a call before it opens. */
  policy?: RefusalPolicy;
  /** Approvals: calls the gate requires are reported `pending` until it decides. */
  approvalGate?: ApprovalGate;
  /** Validate arguments against each tool's input schema before it runs (default true). */
  validateArguments?: boolean;
  logger?: Logger;
}

export interface ToolHostEvents {
  /** Every phase of every call, unfiltered. */
  lifecycle: (event: HostLifecycleEvent) => void;
  /** A call refused before it opened (no lifecycle was sent). */
  refused: (info: { name: string; inferenceId: string; code: string; message: string; parentToolCallId?: string }) => void;
  /** An outcome that arrived after its call had already ended; consumed, never delivered. */
  'late-result': (info: { toolCallId: string; tool: string; kind: 'result' | 'error' }) => void;
  /** Operator-facing diagnostics: grant computation, class parsing, garbage lines, delivery. */
  diagnostic: (info: { serverId?: string; code: string; message: string }) => void;
  /** A connection's transport closed. */
  'server-closed': (info: { serverId: string; epoch: number; code: number | null; signal: string | null }) => void;
}

/** A model stream: it mints inference ids, and its end aborts their still-open model calls. */
export interface Stream {
  readonly id: string;
  readonly conversationId: string;
  /** Registers a new inference of this stream and returns its id. */
  beginInference(inferenceId?: string): string;
  /** Ends the stream: open model calls of its inferences end `aborted`. Returns how many. */
  end(reason?: string): number;
}

const MAX_INFERENCES = 100_000;

export class ToolHost extends EventEmitter<ToolHostEvents> {
  readonly registry: ToolRegistry;
  readonly logger: Logger;
  private readonly ids = new CallIdMinter();
  private readonly emitter: LifecycleEmitter;
  private readonly connections = new Map<string, McplConnection>();
  private readonly inferences = new Map<string, InferenceRecord>();
  private readonly openCalls = new Map<string, OpenCall>();
  private readonly callTimeoutMs: number;
  private readonly options: ToolHostOptions;
  private readonly nonce = randomBytes(3).toString('hex');
  private streamCounter = 0;
  private inferenceCounter = 0;
  private closing = false;

  constructor(options: ToolHostOptions = {}) {
    super();
    this.options = options;
    this.registry = new ToolRegistry(options.classOverrides);
    this.emitter = new LifecycleEmitter(options.inputBoundBytes ?? 16 * 1024);
    this.callTimeoutMs = options.callTimeoutMs ?? 300_000;
    this.logger = options.logger ?? pino({ name: 'toolcell', level: process.env.TOOLCELL_LOG_LEVEL ?? 'warn' }, pino.destination(2));
  }

  /** The RFC-007 input bound in force, in bytes. */
  get inputBoundBytes(): number {
    return this.options.inputBoundBytes ?? 16 * 1024;
  }

  // ── tools ────────────────────────────────────────────────────────────────

  /** Registers a host built-in tool. */
  registerTool(def: HostToolDefinition): void {
    this.registry.addHostTool(def);
  }

  /** Model-facing listing of every tool with its effective class. */
  listTools(): ToolListing[] {
    return this.registry.list();
  }

  // ── servers ──────────────────────────────────────────────────────────────

  /** Spawns a server over stdio, runs the handshake and policy exchange, and registers its tools. */
  async connectServer(config: ServerConfig): Promise<McplConnection> {
    if (this.connections.has(config.id)) throw new Error(`a server with id "${config.id}" is already connected`);
    if (config.id.includes('--')) throw new Error(`server id "${config.id}" must not contain "--"`);
    const connection = new McplConnection(config);
    for (const [tool, classes] of Object.entries(config.classOverrides ?? {})) {
      this.registry.setOverride(`${config.id}--${tool}`, classes);
    }
    connection.on('tools', (tools) => {
      for (const d of this.registry.replaceServerTools(config.id, tools)) this.diagnostic(config.id, 'class', `${d.tool}: ${d.message}`);
    });
    connection.on('diagnostic', (d) => this.diagnostic(config.id, d.code, d.message));
    connection.on('closed', (info) => {
      if (info.expected) this.logger.debug({ serverId: config.id, ...info }, 'server transport closed');
      else this.logger.warn({ serverId: config.id, ...info }, 'server transport closed unexpectedly');
      this.emit('server-closed', { serverId: config.id, epoch: info.epoch, code: info.code, signal: info.signal });
    });
    this.connections.set(config.id, connection);
    this.emitter.add(connection);
    try {
      await connection.connect();
    } catch (error) {
      this.connections.delete(config.id);
      this.emitter.remove(connection);
      this.registry.removeServerTools(config.id);
      throw error;
    }
    return connection;
  }

  /** The connection with this id, if any. */
  server(id: string): McplConnection | undefined {
    return this.connections.get(id);
  }

  /** Disconnects a server and removes its tools. */
  async disconnectServer(id: string): Promise<void> {
    const connection = this.connections.get(id);
    if (!connection) return;
    this.connections.delete(id);
    this.registry.removeServerTools(id);
    await connection.close();
    this.emitter.remove(connection);
  }

  private diagnostic(serverId: string | undefined, code: string, message: string): void {
    this.logger.info({ serverId, code }, message);
    this.emit('diagnostic', { ...(serverId ? { serverId } : {}), code, message });
  }

  // ── inferences and streams ───────────────────────────────────────────────

  /** Registers an inference so its calls can be dispatched; returns its id. */
  beginInference(init: { conversationId: string; inferenceId?: string; streamId?: string }): string {
    const inferenceId = init.inferenceId ?? `inf_${this.nonce}_${(++this.inferenceCounter).toString(36)}`;
    if (this.inferences.size >= MAX_INFERENCES) {
      const oldest = this.inferences.keys().next().value as string;
      this.inferences.delete(oldest);
    }
    this.inferences.set(inferenceId, {
      inferenceId,
      conversationId: init.conversationId,
      ...(init.streamId !== undefined ? { streamId: init.streamId } : {}),
    });
    return inferenceId;
  }

  /** Opens a model stream for a conversation. */
  openStream(conversationId: string): Stream {
    const id = `stream_${this.nonce}_${(++this.streamCounter).toString(36)}`;
    return {
      id,
      conversationId,
      beginInference: (inferenceId?: string) => this.beginInference({ conversationId, streamId: id, ...(inferenceId ? { inferenceId } : {}) }),
      end: (reason?: string) => this.abortOpen(id, reason),
    };
  }

  /**
   * A stream ended: its still-open MODEL calls end `aborted`. Script calls are never aborted
   * here; they end with their own result, or `failed` when their safety timeout gives up.
   */
  abortOpen(streamId: string, reason = 'stream ended'): number {
    return this.abortWhere((call) => call.origin === 'model' && call.inference.streamId === streamId, reason);
  }

  /** Interrupts a conversation: its open model calls end `aborted`. Returns how many. */
  interrupt(conversationId: string, reason = 'interrupted'): number {
    return this.abortWhere((call) => call.origin === 'model' && call.inference.conversationId === conversationId, reason);
  }

  private abortWhere(match: (call: OpenCall) => boolean, reason: string): number {
    let count = 0;
    for (const call of [...this.openCalls.values()]) {
      if (!match(call)) continue;
      if (this.finish(call, 'aborted', errorResult(`Tool call aborted: ${reason}`), reason)) {
        call.abort(new Error(reason));
        count += 1;
      }
    }
    return count;
  }

  /** Open calls now, for diagnostics and tests. */
  openCallIds(): string[] {
    return [...this.openCalls.keys()];
  }

  // ── dispatch ─────────────────────────────────────────────────────────────

  /** Dispatches one tool call through the one path. Never rejects: every outcome is a result. */
  dispatch(request: DispatchRequest): Promise<DispatchOutcome> {
    const inference = this.inferences.get(request.inferenceId);
    const refusal = checkRefusal(request, {
      closing: this.closing,
      inference,
      tool: this.registry.get(request.name),
      toolNames: () => this.registry.names(),
      connection: (id) => this.connections.get(id),
      policy: this.options.policy,
      validateArguments: this.options.validateArguments ?? true,
    });
    if (refusal) {
      this.emit('refused', {
        name: request.name,
        inferenceId: request.inferenceId,
        code: refusal.code,
        message: refusal.message,
        ...(request.parentToolCallId ? { parentToolCallId: request.parentToolCallId } : {}),
      });
      return Promise.resolve({ status: 'refused', result: errorResult(refusal.message), refusal });
    }
    const tool = this.registry.get(request.name)!;
    const args = (request.input ?? {}) as Record<string, unknown>;
    const origin = request.parentToolCallId ? 'script' : 'model';
    const gate = this.options.approvalGate;
    const gated = gate !== undefined && gate.required(this.approvalFacts(request, tool, inference!, args, origin));
    const call = this.open(request, tool, inference!, args, gated);
    if (gated) void this.awaitApproval(call, request, gate);
    else this.execute(call, request.timeoutMs ?? this.callTimeoutMs);
    return call.outcome;
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

  /**
   * A gated call waits, `pending`, for the gate's decision; the wait is not part of its
   * duration nor of its safety timeout. Approved: `started`, then it runs. Refused (or the gate
   * failed): `aborted`, and it never runs.
   */
  private async awaitApproval(call: OpenCall, request: DispatchRequest, gate: NonNullable<ToolHostOptions['approvalGate']>): Promise<void> {
    const resume = request.onPending?.();
    let approved = false;
    let reason = 'refused';
    try {
      const decision = await gate.decide(
        { toolCallId: call.toolCallId, ...this.approvalFacts(request, call.tool, call.inference, call.args, call.origin) },
        call.signal,
      );
      approved = typeof decision === 'boolean' ? decision : decision.approved === true;
      if (typeof decision === 'object' && decision.reason) reason = decision.reason;
    } catch (error) {
      reason = `the approval gate failed: ${(error as Error)?.message ?? String(error)}`;
    } finally {
      resume?.();
    }
    if (!call.isOpen) return; // aborted while pending (stream end, interrupt, shutdown)
    if (!approved) {
      const message = `Tool call to ${call.tool.name} was not approved: ${reason}`;
      this.finish(call, 'aborted', errorResult(message), 'not approved', { code: 'approval_refused', message });
      return;
    }
    call.markStarted();
    this.emitter.start(call.emitted);
    if (this.listenerCount('lifecycle') > 0) this.emit('lifecycle', { ...this.eventBase(call), phase: 'started', input: call.args, at: call.startedAt });
    this.execute(call, request.timeoutMs ?? this.callTimeoutMs);
  }

  private open(request: DispatchRequest, tool: RegisteredTool, inference: InferenceRecord, args: Record<string, unknown>, pending: boolean): OpenCall {
    const toolCallId = this.ids.next(request.modelCallId);
    const identity: LifecycleIdentity = {
      toolCallId,
      inferenceId: inference.inferenceId,
      conversationId: inference.conversationId,
      tool: tool.name,
      class: tool.classes,
      ...(tool.kind === 'server' ? { serverId: tool.serverId!, serverTool: tool.serverTool! } : {}),
      ...(request.parentToolCallId ? { _meta: { [PARENT_META_KEY]: request.parentToolCallId } } : {}),
    };
    const emitted = this.emitter.open(identity, {
      tool: tool.name,
      classes: tool.classes,
      ...(tool.kind === 'server' ? { serverId: tool.serverId!, serverTool: tool.serverTool! } : {}),
      conversationId: inference.conversationId,
      input: args,
    }, pending);
    const origin = request.parentToolCallId ? 'script' : 'model';
    const call = new OpenCall(toolCallId, tool, inference, origin, args, emitted, request.modelCallId, request.parentToolCallId);
    call.pending = pending;
    this.openCalls.set(toolCallId, call);
    if (this.listenerCount('lifecycle') > 0) {
      this.emit('lifecycle', pending ? { ...this.eventBase(call), phase: 'pending', at: call.startedAt } : { ...this.eventBase(call), phase: 'started', input: args, at: call.startedAt });
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

  private execute(call: OpenCall, timeoutMs: number): void {
    const tool = call.tool;
    let pending: Promise<ToolResult>;
    try {
      if (tool.kind === 'host') {
        const ctx = {
          toolCallId: call.toolCallId,
          inferenceId: call.inference.inferenceId,
          conversationId: call.inference.conversationId,
          ...(call.parentToolCallId ? { parentToolCallId: call.parentToolCallId } : {}),
          get signal() {
            return call.signal;
          },
        };
        pending = tool.handler!(call.args, ctx);
      } else {
        const connection = this.connections.get(tool.serverId!);
        if (!connection) throw new Error(`server ${tool.serverId} is gone`);
        // The SDK's own timeout sits past ours so the host's timer decides, and the SDK still cleans up.
        pending = connection.callTool(tool.serverTool!, call.args, timeoutMs + 1000);
      }
    } catch (error) {
      // Dispatch threw after the call opened: it may have done work, so this is `failed`, not a refusal.
      const message = (error as Error)?.message ?? String(error);
      this.finish(call, 'failed', errorResult(`Tool ${tool.name} failed: ${message}`), message);
      return;
    }
    call.timer = setTimeout(() => {
      this.finish(call, 'failed', errorResult(`Tool ${tool.name} timed out after ${timeoutMs} ms`), 'timeout');
    }, timeoutMs);
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
        if (!this.finish(call, 'failed', errorResult(`Tool ${tool.name} failed: ${message}`), message)) this.late(call, 'error');
      },
    );
  }

  private late(call: OpenCall, kind: 'result' | 'error'): void {
    this.emit('late-result', { toolCallId: call.toolCallId, tool: call.tool.name, kind });
  }

  /** Ends a call once: terminal to observers, event in-process. False when it had already ended. */
  private finish(call: OpenCall, phase: TerminalPhase, result: ToolResult, reason?: string, refusal?: DispatchOutcome['refusal']): boolean {
    const wasPending = call.pending;
    const durationMs = call.end(phase, result, refusal);
    if (durationMs === undefined) return false;
    this.openCalls.delete(call.toolCallId);
    const isError = phase === 'completed' ? result.isError === true : undefined;
    // A call that never started has no execution to time: its terminal carries no duration.
    const timed = wasPending ? undefined : durationMs;
    this.emitter.terminal(call.emitted, phase, { ...(isError !== undefined ? { isError } : {}), ...(timed !== undefined ? { durationMs: timed } : {}) });
    if (this.listenerCount('lifecycle') > 0) {
      this.emit('lifecycle', {
        ...this.eventBase(call),
        phase,
        ...(isError !== undefined ? { isError } : {}),
        ...(timed !== undefined ? { durationMs: timed } : {}),
        ...(reason ? { reason } : {}),
        at: performance.now(),
      });
    }
    return true;
  }

  // ── shutdown ─────────────────────────────────────────────────────────────

  /** Waits until every connection's queued lifecycle notifications have been written. */
  async flush(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.flush()));
  }

  /** Refuses new calls, aborts open ones (their terminal attempted), flushes and reaps every server. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.abortWhere(() => true, 'host shutting down');
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    this.connections.clear();
  }
}
