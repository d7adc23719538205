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
import type { Logger } from 'pino';
import { defaultLogger } from './default-logger.ts';
import type { ToolClass } from '../vocabulary/classes.ts';
import { ApprovalGrants } from './approval-grants.ts';
import { CallLifecycle } from './call-lifecycle.ts';
import type { InferenceRecord } from './open-call.ts';
import { ToolRegistry } from './registry.ts';
import { IdentityWalk } from './identity-walk.ts';
import { fromZodTool, isZodSchema, type ZodToolDefinition } from './zod-tool.ts';
import { checkRefusal, describeTimeout, isTimeout, type RefusalContext, type RefusalPolicy } from './refusals.ts';
import { errorResult } from './results.ts';
import type { ApprovalGate, CallInstrumentation, DispatchOutcome, DispatchRequest, HostToolDefinition, RegisteredTool, ToolListing, ToolResult } from './types.ts';
import { LifecycleEmitter } from '../lifecycle/emitter.ts';
import type { HostLifecycleEvent } from '../lifecycle/events.ts';
import type { McplConnection } from '../mcpl/connection.ts';
import type { ServerRequestHandlers } from '../mcpl/client-features/types.ts';
import { serverConfigErrors, type ServerConfig } from '../mcpl/config.ts';
import type { ProviderNotification, ProviderRequestOptions } from '../mcpl/gateway-hooks.ts';
import type { z } from 'zod';

/** Options of {@link ToolHost}; every one is optional (docs/configuration.md lists them with their defaults). */
export interface ToolHostOptions {
  /**
   * Handlers for requests servers make of toolcell as their client (elicitation, sampling,
   * roots). toolcell declares exactly the capabilities given here to every server it connects.
   */
  serverRequests?: ServerRequestHandlers;
  /** RFC-007 §5.2 input bound in bytes (default 16 KiB). */
  inputBoundBytes?: number;
  /** Gives up on a call whose result never comes back (default 5 minutes): `failed`. Milliseconds above 0, `Infinity` for none. */
  callTimeoutMs?: number;
  /** Operator class overrides by model-facing tool name (RFC-008). */
  classOverrides?: Record<string, readonly ToolClass[]>;
  /** Host tool policy: return a message to refuse a call before it opens. */
  policy?: RefusalPolicy;
  /** Approvals: calls the gate requires are reported `pending` until it decides. */
  approvalGate?: ApprovalGate;
  /**
   * Longest wait for the approval gate's answer on a call, in milliseconds (default: no limit).
   * Past it the call is declined (`aborted`, never run) and the gate's signal aborts.
   */
  approvalTimeoutMs?: number;
  /**
   * Call budget: the most calls one inference may open, the model's and its scripts' together;
   * the rest are refused (`budget_exceeded`) before they open. Default: no budget.
   */
  callsPerInference?: number;
  /**
   * Validate arguments against each tool's input schema before it runs (default true), with
   * ajv. A schema it cannot compile is not enforced (the tool's server stays the judge); that,
   * and unknown keywords or formats, are reported once per schema as an `input-schema` diagnostic.
   */
  validateArguments?: boolean;
  logger?: Logger;
}

/** The events a {@link ToolHost} emits (`host.on(name, listener)`), by name. */
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
  /** A provider's notification the host does not consume itself (logging, resource and prompt changes), as it came. */
  'server-notification': (info: { serverId: string; notification: ProviderNotification }) => void;
  /** A server's tool was skipped: `ownerServerId`'s tool (or a host tool, undefined) already has the name. */
  'name-collision': (info: { serverId: string; tool: string; ownerServerId: string | undefined }) => void;
  /** A server's tools were (re)listed: the listing may have changed (its initial listing, each `list_changed`). */
  'server-tools': (info: { serverId: string }) => void;
  /** {@link ToolHost.endConversation} ended a conversation (after its hooks settled). */
  'conversation-ended': (info: { conversationId: string; reason: string; aborted: number }) => void;
  /**
   * A running script's output (console lines, print, Python's stdout/stderr) while it runs,
   * coalesced (code-execution/live-output.ts); `toolCallId` is its `code_execution` call.
   */
  'script-output': (info: { toolCallId: string; inferenceId: string; conversationId: string; text: string; dropped: number }) => void;
  /**
   * A background script (`code_execution` with `background: true`) has ended: `status` is
   * `completed` (it returned or failed on its own) or `cancelled`; `ok` is its envelope's.
   * `toolCallId` is the `code_execution` call that started it. The result itself is read with
   * `code_execution({ action: "wait", scriptId })` in the same conversation; `result` is that
   * same answer, for the embedding application (serve stores it as an MCP task's result).
   */
  'script-finished': (info: { scriptId: string; toolCallId: string; inferenceId: string; conversationId: string; status: 'completed' | 'cancelled'; ok: boolean; result: ToolResult }) => void;
}

/**
 * Which connection runs a call of `conversationId` to server `serverId` (see
 * {@link ToolHost.routeCalls}); undefined: the server's own connection.
 */
export type CallRouter = (serverId: string, conversationId: string) => McplConnection | Promise<McplConnection> | undefined;

/**
 * What a conversation left behind is freed here when it ends: code_execution's VM, interpreter
 * and session. May be async; {@link ToolHost.endConversation} waits for it.
 */
export type ConversationEndHook = (conversationId: string) => void | Promise<void>;

/** A model stream: it mints inference ids, and its end aborts their still-open model calls. */
export interface Stream {
  readonly id: string;
  readonly conversationId: string;
  /** Registers a new inference of this stream and returns its id. */
  beginInference(inferenceId?: string): string;
  /** Ends the stream: open model calls of its inferences end `aborted`. Returns how many. */
  end(reason?: string): number;
}

/** {@link ToolHost.listTools}'s mark for a tool whose listing entry is built on every build: its `describe()` may say something new. */
const DESCRIBED = Symbol('described');

/** A tool's model-facing listing entry, frozen. */
function listingEntry(t: RegisteredTool, description: string): ToolListing {
  return Object.freeze({
    name: t.name,
    description,
    inputSchema: t.inputSchema,
    ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
    classes: Object.freeze([...t.classes]) as ToolListing['classes'],
    classSource: t.classSource,
    ...(t.serverId !== undefined ? { serverId: t.serverId } : {}),
  });
}

const MAX_INFERENCES = 100_000;
/** Diagnostics an operator should see at the default log level. */
const WARN_CODES = new Set(['name-collision', 'grants-nothing', 'reconnect-failed', 'delivery-failed', 'progress-listener-failed', 'plain-mcp', 'response-too-large', 'conversation-end-failed', 'task-required-unsupported']);

/**
 * The tool host an agent framework embeds: one dispatch path for every tool call, the model's
 * own and every call a script makes (refusal sites, then `started`, the result, and exactly one
 * terminal), reported to MCPL observers and, unfiltered, to `lifecycle` listeners.
 *
 * Register built-ins with {@link ToolHost.registerTool}, connect MCP servers with
 * {@link ToolHost.connectServer}, list tools for the model with {@link ToolHost.listTools}, and
 * call {@link ToolHost.dispatch} once per model tool call. docs/getting-started.md walks through it.
 */
export class ToolHost extends EventEmitter<ToolHostEvents> {
  readonly registry: ToolRegistry;
  private givenLogger: Logger | undefined;
  /** The logger given in the options, else pino to stderr, created on first use (default-logger.ts says why). */
  get logger(): Logger {
    return (this.givenLogger ??= defaultLogger());
  }
  /**
   * Standing approvals: `list(conversationId)` and `revoke(conversationId, tool?)` for the
   * conversation grants a person gave; a revoked grant applies to the next call.
   */
  readonly approvals = new ApprovalGrants();
  private readonly emitter: LifecycleEmitter;
  private readonly connections = new Map<string, McplConnection>();
  private readonly inferences = new Map<string, InferenceRecord>();
  /** Each conversation's inference ids, so that its end forgets them without a scan. */
  private readonly inferencesOf = new Map<string, Set<string>>();
  private readonly conversationEndHooks = new Set<ConversationEndHook>();
  private readonly calls: CallLifecycle;
  private readonly options: ToolHostOptions;
  private readonly nonce = randomBytes(3).toString('hex');
  private streamCounter = 0;
  private inferenceCounter = 0;
  private closing = false;
  /** What the refusal sites read of this host, made once: a context object per call was garbage on the dispatch path. */
  private readonly refusalSites: RefusalContext;
  /** Wakers of pending reconnect back-offs. */
  private readonly backoffs = new Set<() => void>();
  /** See {@link toolsVersion}: what it was last computed from. */
  private seenRegistryVersion = -1;
  private seenLiveness = '';
  /** Bumped by {@link refreshListing}; read by {@link toolsVersion}. */
  private listingEpoch = 0;
  private seenListingEpoch = 0;
  private version = 0;
  /** Listings built for one {@link toolsVersion}, reused until it changes. */
  private available: { version: number; tools: readonly RegisteredTool[] } | undefined;
  private listing: { version: number; tools: readonly ToolListing[] } | undefined;
  /**
   * Each available tool's frozen listing entry, kept between builds (the registry replaces a
   * tool's object on any change of it): {@link DESCRIBED} for a tool whose `describe()` is read
   * anew on every build, null for one the model is never offered. A change of the tool set
   * derives only the changed tools' entries (identity-walk.ts).
   */
  private readonly listed = new IdentityWalk<RegisteredTool, ToolListing | null | typeof DESCRIBED>((t) =>
    t.modelCallable === false ? null : t.describe ? DESCRIBED : listingEntry(t, t.description),
  );
  /** How many times the model-facing listing was built (tests count rebuilds with it). */
  listingBuilds = 0;
  /**
   * Tools the latest listing build looked up or derived beyond walking the list (tests pin
   * that a change of one tool costs a few, whatever the number of tools).
   */
  get listingWork(): number {
    return this.listed.lastWork;
  }
  /** See {@link routeCalls}. */
  private callRouter: CallRouter | undefined;

  constructor(options: ToolHostOptions = {}) {
    super();
    if (options.callTimeoutMs !== undefined && !isTimeout(options.callTimeoutMs)) {
      throw new TypeError(`callTimeoutMs must be a number of milliseconds above 0 (Infinity for none), not ${describeTimeout(options.callTimeoutMs)}`);
    }
    this.options = options;
    this.registry = new ToolRegistry(options.classOverrides);
    this.emitter = new LifecycleEmitter(options.inputBoundBytes ?? 16 * 1024);
    this.calls = new CallLifecycle(
      this.emitter,
      (id, conversationId) => this.callRouter?.(id, conversationId) ?? this.connections.get(id),
      {
        wantsLifecycle: () => this.listenerCount('lifecycle') > 0,
        lifecycle: (event) => this.emit('lifecycle', event),
        late: (info) => this.emit('late-result', info),
        progressFailed: (info) =>
          this.diagnostic(undefined, 'progress-listener-failed', `the onProgress listener of ${info.tool} (${info.toolCallId}) threw: ${(info.error as Error)?.message ?? String(info.error)}`),
      },
      { callTimeoutMs: options.callTimeoutMs ?? 300_000, grants: this.approvals, ...(options.approvalGate ? { approvalGate: options.approvalGate } : {}), ...(options.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}) },
    );
    // Getters, not copies: the options object is the caller's, read at each call as before.
    this.refusalSites = {
      toolNames: () => this.registry.names(),
      connection: (id) => this.connections.get(id),
      get policy() {
        return options.policy;
      },
      get validateArguments() {
        return options.validateArguments ?? true;
      },
      get callsPerInference() {
        return options.callsPerInference;
      },
      schemaProblems: this.schemaProblems,
      parentEnded: (id) => this.calls.hasEnded(id),
    };
    this.givenLogger = options.logger;
  }

  /** The approval gate in force, if any (code_execution asks it up front, see src/approvals/). */
  get approvalGate(): ApprovalGate | undefined {
    return this.options.approvalGate;
  }

  /** The RFC-007 input bound in force, in bytes. */
  get inputBoundBytes(): number {
    return this.options.inputBoundBytes ?? 16 * 1024;
  }

  // ── tools ────────────────────────────────────────────────────────────────

  /**
   * Registers a host built-in tool. `inputSchema` is a JSON Schema object or a zod 4 object
   * schema; with zod, the handler's `args` are the schema's parsed (typed) output.
   */
  registerTool<S extends z.ZodType>(def: ZodToolDefinition<S>): void;
  registerTool(def: HostToolDefinition): void;
  registerTool(def: HostToolDefinition | ZodToolDefinition<z.ZodType>): void {
    this.registry.addHostTool(isZodSchema(def.inputSchema) ? fromZodTool(def as ZodToolDefinition<z.ZodType>) : (def as HostToolDefinition));
  }

  /**
   * A number that changes exactly when what {@link listTools} returns may change: a tool
   * registered or removed, a server's tools (re)listed, a class override, or a server
   * connecting or going away (its tools are hidden meanwhile). Listings and descriptions are
   * cached under it. Reading it costs a look at each connection, not at each tool.
   */
  get toolsVersion(): number {
    let liveness = '';
    for (const c of this.connections.values()) if (c.isConnected) liveness += `${c.id}\u0000${c.epoch}\n`;
    if (this.registry.version !== this.seenRegistryVersion || liveness !== this.seenLiveness || this.listingEpoch !== this.seenListingEpoch) {
      this.seenRegistryVersion = this.registry.version;
      this.seenLiveness = liveness;
      this.seenListingEpoch = this.listingEpoch;
      this.version += 1;
    }
    return this.version;
  }

  /**
   * Moves {@link toolsVersion} without a change of the tools themselves, for a tool whose
   * `describe()` text changed (code_execution, when it learned a tool's result type): every
   * listing and description cached under the version is rebuilt on its next read.
   */
  refreshListing(): void {
    this.listingEpoch += 1;
  }

  /**
   * Every registered tool the model may be offered now, in registration order: a server's
   * tools are left out while it is not connected. Built once per {@link toolsVersion}; the
   * array is shared and frozen.
   */
  availableTools(): readonly RegisteredTool[] {
    const version = this.toolsVersion;
    if (this.available?.version !== version) {
      const all = this.registry.shared();
      // Only a server that has tools and is down hides any: with none, every tool is offered
      // and no tool is looked at (10,000 tools were a 0.3 ms filter per change).
      const hidden = new Set<string>();
      for (const id of this.registry.serverIds()) if (this.connections.get(id)?.isConnected !== true) hidden.add(id);
      const tools = hidden.size === 0 ? all : Object.freeze(all.filter((t) => t.serverId === undefined || !hidden.has(t.serverId)));
      this.available = { version, tools };
    }
    return this.available.tools;
  }

  /**
   * Model-facing listing of every tool with its effective class. A server's tools are left
   * out while it is not connected (dead, or reconnecting): the model should not be offered
   * tools that would only be refused. They come back when a new epoch is ready.
   *
   * Built once per {@link toolsVersion} (descriptions included) and reused: the array is
   * fresh on each call, its entries are frozen and shared.
   */
  listTools(): ToolListing[] {
    const version = this.toolsVersion;
    if (this.listing?.version !== version) {
      // A script-only tool (`callers: 'script'`) is never offered to the model directly (null).
      const all = this.availableTools();
      const { values } = this.listed.build(all);
      const tools: ToolListing[] = [];
      for (let i = 0; i < values.length; i++) {
        const entry = values[i]!;
        if (entry === DESCRIBED) tools.push(listingEntry(all[i]!, all[i]!.describe!()));
        else if (entry !== null) tools.push(entry);
      }
      this.listing = { version, tools };
      this.listingBuilds += 1;
    }
    return [...this.listing.tools];
  }

  // ── servers ──────────────────────────────────────────────────────────────

  /**
   * Connects a server — spawned over stdio (`command`) or remote over Streamable HTTP
   * (`url`) — runs the handshake (and, for an MCPL server, the policy exchange) and registers
   * its tools.
   */
  async connectServer(config: ServerConfig): Promise<McplConnection> {
    const errors = serverConfigErrors(config);
    if (errors.length > 0) throw new Error(`server ${JSON.stringify(config.id)} is misconfigured: ${errors.join('; ')}`);
    // Loaded with the first server, not with the host: the MCP SDK's client and zod are ~20 MB
    // of a host's memory that a host of built-ins alone never uses. Before the id check, so
    // that two connects of one id in the same tick still see each other.
    const { McplConnection } = await import('../mcpl/connection.ts');
    if (this.connections.has(config.id)) throw new Error(`a server with id "${config.id}" is already connected`);
    const connection = new McplConnection(config, this.options.serverRequests);
    for (const [tool, classes] of Object.entries(config.classOverrides ?? {})) {
      this.registry.setOverride(config.prefixTools === false ? tool : `${config.id}--${tool}`, classes);
    }
    connection.on('tools', (tools) => {
      for (const d of this.registry.replaceServerTools(config.id, tools, config.prefixTools !== false, config.callers)) {
        if (d.collidesWith) this.emit('name-collision', { serverId: config.id, tool: d.tool, ownerServerId: d.collidesWith.serverId });
        this.diagnostic(config.id, d.collidesWith ? 'name-collision' : 'class', `${d.tool}: ${d.message}${d.collidesWith ? ` (${d.collidesWith.serverId !== undefined ? `server ${d.collidesWith.serverId}` : 'a host tool'} has it)` : ''}`);
      }
      this.emit('server-tools', { serverId: config.id });
    });
    connection.on('notification', (notification) => this.emit('server-notification', { serverId: config.id, notification }));
    connection.on('diagnostic', (d) => this.diagnostic(config.id, d.code, d.message));
    connection.on('closed', (info) => {
      if (info.expected) this.logger.debug({ serverId: config.id, ...info }, 'server transport closed');
      else this.logger.warn({ serverId: config.id, ...info }, 'server transport closed unexpectedly');
      this.emit('server-closed', { serverId: config.id, epoch: info.epoch, code: info.code, signal: info.signal });
      if (!info.expected && config.reconnect && !this.closing) void this.reconnect(connection, config.reconnect);
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

  /**
   * Brings a server back after an unexpected exit. Its tools stay listed meanwhile; calls to
   * them are refused (`server_unavailable`) until a new epoch is ready.
   */
  private async reconnect(connection: McplConnection, policy: NonNullable<ServerConfig['reconnect']>): Promise<void> {
    const attempts = policy.maxAttempts ?? 3;
    let delay = policy.delayMs ?? 200;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await this.backoff(delay);
      if (this.closing || this.connections.get(connection.id) !== connection) return;
      try {
        await connection.connect();
        this.diagnostic(connection.id, 'reconnected', `${connection.id} reconnected (epoch ${connection.epoch}, attempt ${attempt})`);
        return;
      } catch (error) {
        this.diagnostic(connection.id, 'reconnect-failed', `reconnect attempt ${attempt} of ${attempts}: ${(error as Error).message}`);
        delay *= 2;
      }
    }
  }

  /** A reconnect back-off that close() cuts short, so that no timer outlives the host. */
  private backoff(ms: number): Promise<void> {
    // An attempt that failed because the host closed meanwhile must not start another wait.
    if (this.closing) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.backoffs.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.backoffs.add(wake);
    });
  }

  /**
   * Routes server tool calls by conversation: `router` may name another connection to the
   * same server for a conversation (a gateway's per-client upstream session), or a promise of
   * one still connecting; undefined keeps the server's own connection. A router that throws
   * fails the call with its message. One router at a time; returns its removal.
   */
  routeCalls(router: CallRouter): () => void {
    if (this.callRouter) throw new Error('a call router is already installed on this host');
    this.callRouter = router;
    return () => {
      if (this.callRouter === router) this.callRouter = undefined;
    };
  }

  /** The connection with this id, if any. */
  server(id: string): McplConnection | undefined {
    return this.connections.get(id);
  }

  /**
   * Sends an MCP request to the server `serverId` and parses its result with `schema` (a
   * gateway passing `resources/read`, `prompts/get`... through). Rejects when no such server
   * is connected, and with the server's own error (an `McpError` keeps its code).
   */
  requestServer<S extends z.ZodType<object>>(
    serverId: string,
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S,
    options?: ProviderRequestOptions,
  ): Promise<z.infer<S>> {
    const connection = this.connections.get(serverId);
    if (!connection) return Promise.reject(new Error(`no server with id "${serverId}"`));
    return connection.sendRequest(method, params, schema, options);
  }

  /** Every connection now (for instrumentation reading delivery statistics). */
  servers(): McplConnection[] {
    return [...this.connections.values()];
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

  /** What argument validation could not honour in a tool's input schema, told once per schema. */
  private readonly schemaProblems = (tool: RegisteredTool, problems: readonly string[]): void => {
    for (const problem of problems) this.diagnostic(tool.serverId, 'input-schema', `${tool.name}: ${problem}`);
  };

  private diagnostic(serverId: string | undefined, code: string, message: string): void {
    // Routine per-tool class notes (one per unclassed tool of a plain MCP server) stay out of
    // the operator's way; what needs attention is a warning.
    const level = code === 'class' ? 'debug' : WARN_CODES.has(code) ? 'warn' : 'info';
    this.logger[level]({ serverId, code }, message);
    this.emit('diagnostic', { ...(serverId ? { serverId } : {}), code, message });
  }

  // ── inferences and streams ───────────────────────────────────────────────

  /** Registers an inference so its calls can be dispatched; returns its id. */
  beginInference(init: { conversationId: string; inferenceId?: string; streamId?: string }): string {
    const inferenceId = init.inferenceId ?? `inf_${this.nonce}_${(++this.inferenceCounter).toString(36)}`;
    this.forgetInference(inferenceId);
    if (this.inferences.size >= MAX_INFERENCES) this.forgetInference(this.inferences.keys().next().value as string);
    this.inferences.set(inferenceId, {
      inferenceId,
      conversationId: init.conversationId,
      calls: 0,
      ...(init.streamId !== undefined ? { streamId: init.streamId } : {}),
    });
    let ids = this.inferencesOf.get(init.conversationId);
    if (ids === undefined) this.inferencesOf.set(init.conversationId, (ids = new Set()));
    ids.add(inferenceId);
    return inferenceId;
  }

  private forgetInference(inferenceId: string): void {
    const record = this.inferences.get(inferenceId);
    if (record === undefined) return;
    this.inferences.delete(inferenceId);
    const ids = this.inferencesOf.get(record.conversationId);
    ids?.delete(inferenceId);
    if (ids?.size === 0) this.inferencesOf.delete(record.conversationId);
  }

  /** Inferences and conversations the host remembers now (tests check that ended conversations leave nothing). */
  get remembered(): { inferences: number; conversations: number } {
    return { inferences: this.inferences.size, conversations: this.inferencesOf.size };
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
    return this.calls.abortWhere((call) => call.origin === 'model' && call.inference.streamId === streamId, reason);
  }

  /** Interrupts a conversation: its open model calls end `aborted`. Returns how many. */
  interrupt(conversationId: string, reason = 'interrupted'): number {
    return this.calls.abortWhere((call) => call.origin === 'model' && call.inference.conversationId === conversationId, reason);
  }

  /**
   * Ends a conversation for good, as an embedder does when its user closes it: its open model
   * calls end `aborted` (their scripts are stopped), its inferences are forgotten (a call naming
   * one is refused as unknown), its standing approvals are revoked (in the store too, when
   * code_execution keeps them there), and every
   * {@link onConversationEnd} hook frees what it kept for it (code_execution: the conversation's
   * VM, Python interpreter and session). Resolves once the hooks have settled; a hook that
   * fails is reported as a `conversation-end-failed` diagnostic, the others still run. Script
   * calls already open end with their own result, as on {@link interrupt}. The id may be used
   * again afterwards: it then names a new conversation, with nothing of the old one.
   *
   * Without it, what a conversation leaves is reclaimed only by idle timeouts and caps (the VM
   * after `sessionIdleMs`, interpreters past `maxPythonInterpreters`, inferences past 100,000).
   *
   * @returns how many model calls were aborted.
   */
  async endConversation(conversationId: string, reason = 'conversation ended'): Promise<number> {
    if (typeof conversationId !== 'string' || conversationId === '') throw new TypeError('conversationId must be a non-empty string');
    const aborted = this.interrupt(conversationId, reason);
    for (const id of [...(this.inferencesOf.get(conversationId) ?? [])]) this.forgetInference(id);
    // Its grants end here at once, and in the store when they are kept in one (awaited with the hooks).
    const revoked = this.approvals.revokeEverywhere(conversationId);
    const outcomes = await Promise.allSettled([revoked, ...[...this.conversationEndHooks].map(async (hook) => hook(conversationId))]);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        this.diagnostic(undefined, 'conversation-end-failed', `freeing conversation ${conversationId} failed: ${(outcome.reason as Error)?.message ?? String(outcome.reason)}`);
      }
    }
    this.emit('conversation-ended', { conversationId, reason, aborted });
    return aborted;
  }

  /** Registers a hook run by {@link endConversation}; returns its removal. */
  onConversationEnd(hook: ConversationEndHook): () => void {
    this.conversationEndHooks.add(hook);
    return () => {
      this.conversationEndHooks.delete(hook);
    };
  }

  /**
   * Installs an instrumentation of the dispatch path (one at a time); returns its removal.
   * Calls already open keep running without it.
   */
  instrument(instrumentation: CallInstrumentation): () => void {
    if (this.calls.instrumentation) throw new Error('an instrumentation is already installed on this host');
    this.calls.instrumentation = instrumentation;
    return () => {
      if (this.calls.instrumentation === instrumentation) this.calls.instrumentation = undefined;
    };
  }

  /**
   * Lets the script of call `toolCallId` keep making calls after that call's terminal (a
   * background `code_execution`): its children may still open, carrying its id as their parent,
   * and their approval waits survive its terminal. Call the returned release once the script
   * has stopped; from then on children are refused (`parent_ended`) as for any ended call.
   */
  letChildrenOutlive(toolCallId: string): () => void {
    return this.calls.outlive(toolCallId);
  }

  /** Open calls now, for diagnostics and tests. */
  openCallIds(): string[] {
    return [...this.calls.open.keys()];
  }

  // ── dispatch ─────────────────────────────────────────────────────────────

  /** Dispatches one tool call through the one path. Never rejects: every outcome is a result. */
  dispatch(request: DispatchRequest): Promise<DispatchOutcome> {
    const inference = this.inferences.get(request.inferenceId);
    const tool = this.registry.get(request.name);
    const refusal = checkRefusal(request, this.closing, inference, tool, this.refusalSites);
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
    inference!.calls += 1;
    if (request.executionBudget) request.executionBudget.opened += 1;
    return this.calls.run(request, tool!, inference!, (request.input ?? {}) as Record<string, unknown>);
  }

  // ── shutdown ─────────────────────────────────────────────────────────────

  /** Writes every connection's queued lifecycle notifications now (what pacing holds too) and waits until they are written. */
  async flush(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.flush()));
  }

  /** Refuses new calls, aborts open ones (their terminal attempted), flushes and reaps every server. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const wake of [...this.backoffs]) wake();
    this.calls.abortWhere(() => true, 'host shutting down');
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    this.connections.clear();
  }
}
