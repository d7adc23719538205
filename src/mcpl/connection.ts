/**
 * One MCP/MCPL server over stdio or Streamable HTTP: handshake (`experimental.mcpl` both ways,
 * the current MCP version offered with the SDK's fallback — see docs/rfc/protocol-version.md), the initial policy exchange (`featureSets/update` as a request, before any
 * privileged inbound method is accepted), tool listing with re-list on `list_changed`,
 * `tools/call`, inbound `tools/observe`, grant changes, reconnect with a transport epoch.
 *
 * A server that does not advertise `experimental.mcpl` is plain MCP: it is a tool provider
 * and nothing else — no policy exchange (it would answer -32601), no lifecycle notifications,
 * no `tools/observe` — so every official MCP server works unchanged.
 *
 * It is also the observer endpoint the lifecycle emitter writes to: its own bounded queue,
 * its grant and its filter.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, CallToolResultSchema, ListToolsResultSchema, type JSONRPCMessage, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { EventEmitter } from 'eventemitter3';
import { createTransport } from './transports/create.ts';
import type { HostTransport } from './transports/types.ts';
import { isHttpConfig, serverConfigErrors, type ServerConfig } from './config.ts';
import { canCompleteRedirect } from './auth.ts';
import { computeLifecycleGrant, type OperatorPolicy } from '../lifecycle/grants.ts';
import { parseObserveParams, OBSERVE_LIMITS } from '../lifecycle/observe-params.ts';
import { DeliveryQueue } from '../lifecycle/delivery-queue.ts';
import type { ObserverEndpoint } from '../lifecycle/emitter.ts';
import { speakBothEras, type EraState } from './transports/era.ts';
import type { Listener } from './transports/listener.ts';
import { paramHeaderProblem } from './transports/param-headers.ts';
import { AS_TASK_META, TASKS_EXTENSION } from './transports/era-tasks.ts';
import { HttpTransport } from './transports/http.ts';
import { readAdvertisement, derivePolicyExchange, type PolicyExchange } from './handshake.ts';
import { lifecycleKey } from '../lifecycle/state-key.ts';
import type { ServerToolListing } from '../host/registry.ts';
import { callToolAsTask, partitionByTaskSupport, statusProgress, serverCallsToolsAsTasks, serverOffersTasksExtension, TASK_REQUIRED_UNSUPPORTED } from './tasks.ts';
import type { ProgressUpdate, ToolResult } from '../host/types.ts';
import { CallTracker } from './call-tracker.ts';
import { ListingExpiry, listingTtl } from './listing-expiry.ts';
import { createHash } from 'node:crypto';
import { sendProviderRequest, type ProviderNotification, type ProviderRequestOptions } from './gateway-hooks.ts';
import { ConnectError } from './connect-error.ts';
import { classifyConnectFailure } from './connect-failure.ts';
import { clientCapabilities, installServerRequestHandlers, type CallOwner, type OpenServerCall, type ServerRequestHandlers } from './client-features/index.ts';

/** The diagnostic code for a 2026 server's tool left out for invalid `x-mcp-header` marks (SEP-2243). */
export const INVALID_PARAM_HEADER = 'invalid-param-header';

/** How a `tools/call` is run: its abort signal, progress relay, and where a late answer goes. */
export interface CallToolOptions {
  /** Aborting it cancels the request downstream (`notifications/cancelled`). */
  signal?: AbortSignal;
  /** Asks the server for progress (`_meta.progressToken`) and receives each report. */
  onProgress?: (p: ProgressUpdate) => void;
  /** The server answered a request we had cancelled: the answer is consumed and reported here. */
  onLate?: (kind: 'result' | 'error') => void;
  /** Members of the request's `params._meta` (the host passes trace context there). */
  meta?: Record<string, unknown>;
  /** The host call this is, told to server-request handlers (elicitation, sampling, roots) it causes. */
  owner?: CallOwner;
}

export const MCPL_VERSION = '0.5';

const CAPABILITY_DENIED = -32002;
/** The longest delay Node's timers take as it is (2^31 - 1 ms); longer ones fire after 1 ms. */
const MAX_TIMER_MS = 0x7fffffff;

const ToolsObserveRequest = z.object({ method: z.literal('tools/observe'), params: z.unknown().optional() });
const ToolsListChanged = z.object({ method: z.literal('notifications/tools/list_changed'), params: z.unknown().optional() });
const AnyResult = z.object({}).passthrough();

/** Whether `initialize` capabilities carry an `experimental.mcpl` object. */
export function isMcplAdvertised(capabilities: Record<string, unknown> | undefined): boolean {
  const experimental = capabilities?.experimental as Record<string, unknown> | undefined;
  const mcpl = experimental?.mcpl;
  return mcpl !== null && typeof mcpl === 'object' && !Array.isArray(mcpl);
}

type LifecycleGrant = ReturnType<typeof computeLifecycleGrant>;
type Filter = Exclude<Extract<ReturnType<typeof parseObserveParams>, { ok: true }>['filter'], undefined>;

export interface ConnectionEvents {
  /** The server's tools were (re)listed. */
  tools: (tools: ServerToolListing[]) => void;
  /** The transport closed; `epoch` is the one that closed. */
  closed: (info: { epoch: number; code: number | null; signal: string | null; expected: boolean }) => void;
  /** Something worth an operator's attention (RFC-007/008 SHOULD-log items, garbage lines). */
  diagnostic: (d: { code: string; message: string }) => void;
  /** The filter in force changed (set, cleared or discarded). */
  filter: (filter: Filter | null) => void;
  /** A notification no handler here consumes (logging, resource and prompt changes): see gateway-hooks.ts. */
  notification: (notification: ProviderNotification) => void;
}

export type ConnectionState = 'idle' | 'connecting' | 'ready' | 'closed';

/**
 * One connected MCP or MCPL server (provider, observer or both), as {@link ToolHost.connectServer}
 * makes it: handshake, policy exchange, tool listing, calls, and the observer's own bounded queue.
 */
export class McplConnection extends EventEmitter<ConnectionEvents> implements ObserverEndpoint {
  readonly id: string;
  epoch = 0;
  state: ConnectionState = 'idle';
  queue: DeliveryQueue;
  /** True once the initial policy exchange of the current transport completed. */
  policyEstablished = false;
  /**
   * Whether the server of the current transport advertised `experimental.mcpl`. False: a
   * plain MCP provider, never sent a policy exchange nor lifecycle notifications.
   */
  speaksMcpl = false;
  exchange: PolicyExchange | undefined;
  lifecycle: LifecycleGrant | undefined;
  filter: Filter | null = null;
  /** Text the server wrote to stderr, last 8 KiB, for error messages. */
  stderrTail = '';
  /** Cached {@link lifecycleKey}; cleared whenever the grant or the filter changes. */
  private stateKey: string | undefined;
  /**
   * What {@link lifecycleState} last returned, handed out again while the grant and the filter
   * are the same objects: the emitter asks once per call, and a new object per call per
   * observer was garbage on the hottest path.
   */
  private stateView: { grant: LifecycleGrant; filter: Filter | null; key: string } | undefined;
  /** Own names of the listed tools that must be called as tasks (execution.taskSupport "required"). */
  private taskTools = new Set<string>();
  /** The era the transport settled on (transports/era.ts), when `protocolEra` is `auto`. */
  private eraState: EraState | undefined;
  /** The tools of the last listing, each as the server sent it (every field), by the server's own name. */
  private listed = new Map<string, Readonly<ServerToolListing>>();
  private client: Client | undefined;
  private transport: HostTransport | undefined;
  private policy: OperatorPolicy;
  private closing = false;
  /** Progress and cancelled requests of the current transport's calls. */
  private tracker = new CallTracker();
  /** Calls in flight on this connection, to attribute server→client requests to one. */
  private readonly openCalls = new Set<OpenServerCall>();
  /** The re-list after `tools/list_changed` in flight, and whether another notification came meanwhile. */
  private relisting: Promise<void> | undefined;
  private relistAgain = false;
  /** Whether the re-list to come follows a `list_changed` (announced always) rather than only an expired hint. */
  private relistLoud = false;
  /** The listing's cache hint honoured: re-listed once stale (listing-expiry.ts). */
  private readonly expiry = new ListingExpiry();
  /** A digest of the last listing, so a re-list on expiry that finds nothing new announces nothing. */
  private listingDigest: string | undefined;
  /** The era layer of the current transport (`protocolEra: "auto"`), with its listen stream. */
  private era: EraState | undefined;

  constructor(
    private readonly config: ServerConfig,
    private readonly serverRequests?: ServerRequestHandlers,
  ) {
    super();
    this.id = config.id;
    this.policy = config.policy ?? { enabledCapabilities: ['tools'] };
    this.queue = this.newQueue();
  }

  get isConnected(): boolean {
    return this.state === 'ready' && this.transport?.isOpen === true;
  }

  get pid(): number | undefined {
    return this.transport?.pid;
  }

  /** The MCP protocol version agreed with the server. */
  get protocolVersion(): string | undefined {
    return this.transport?.protocolVersion;
  }

  /** Effective capability paths of the current grant. */
  get grantedPaths(): string[] {
    return this.exchange ? [...this.exchange.effectiveCapabilities] : [];
  }

  lifecycleState(): { grant: LifecycleGrant; filter: Filter | null; key: string } | null {
    if (!this.policyEstablished || !this.lifecycle || !this.lifecycle.observe || this.state !== 'ready') return null;
    this.stateKey ??= lifecycleKey(this.lifecycle, this.filter);
    const view = this.stateView;
    if (view !== undefined && view.grant === this.lifecycle && view.filter === this.filter && view.key === this.stateKey) return view;
    return (this.stateView = { grant: this.lifecycle, filter: this.filter, key: this.stateKey });
  }

  /** A fresh queue; after a reconnect it goes on from the old one's counts (drops survive reconnects). */
  private newQueue(previous?: DeliveryQueue): DeliveryQueue {
    return new DeliveryQueue(
      (data) => this.transport?.writeRaw(data) ?? Promise.reject(new Error('not connected')),
      (error) => this.emit('diagnostic', { code: 'delivery-failed', message: `lifecycle delivery stopped: ${error.message}` }),
      {
        ...(this.config.maxQueuedNotifications !== undefined ? { maxQueued: this.config.maxQueuedNotifications } : {}),
        ...(this.config.maxQueuedBytes !== undefined ? { maxQueuedBytes: this.config.maxQueuedBytes } : {}),
        maxCallsPerSecond: this.config.maxObservedCallsPerSecond ?? 1_000,
        ...(previous !== undefined ? { carried: previous.stats } : {}),
      },
    );
  }

  /**
   * Spawns (or reaches) the server and completes handshake, policy exchange and the first
   * tool listing. A remote server that asks for authorization with a provider that runs the
   * authorization-code flow is connected again once the code came back (see auth.ts).
   */
  async connect(): Promise<void> {
    try {
      await this.connectOnce();
    } catch (error) {
      const provider = isHttpConfig(this.config) ? this.config.authProvider : undefined;
      if (!(error instanceof ConnectError && error.code === 'unauthorized' && canCompleteRedirect(provider))) throw error;
      const transport = this.transport as { finishAuth?: (code: string) => Promise<void>; authorizationRedirects?: number } | undefined;
      // Only a started redirect brings a code back: a refusal without one (a 403, a failed registration) is final.
      if (!transport?.finishAuth || !transport.authorizationRedirects) throw error;
      try {
        await transport.finishAuth(await provider.waitForAuthorizationCode());
      } catch (cause) {
        throw new ConnectError('unauthorized', this.id, 'authorization', `server ${this.id} refused authorization: the authorization code was not accepted: ${(cause as Error).message}`, { cause });
      }
      await this.connectOnce();
    }
  }

  private async connectOnce(): Promise<void> {
    if (this.state === 'connecting' || this.state === 'ready') throw new Error(`server ${this.id} is already connected`);
    this.closing = false;
    this.state = 'connecting';
    this.epoch += 1;
    const epoch = this.epoch;
    this.policyEstablished = false;
    this.filter = null;
    this.stateKey = undefined;
    // What the old queue still held is counted as dropped, and the new one goes on from its counts.
    this.queue.stop();
    this.queue = this.newQueue(this.queue);
    // Each epoch's failure is explained by its own process's stderr.
    this.stderrTail = '';
    const transport = createTransport(this.config);
    this.transport = transport;
    this.era = undefined;
    // The 2026-07-28 era, when configured: discover first, handshake as the fallback (transports/era.ts).
    if (this.config.protocolEra === 'auto') {
      const era = speakBothEras(transport, this.config.requestTimeoutMs ?? 30_000);
      this.eraState = era;
      // A tools/call's Mcp-Param-* headers come from the tool's schema as the server listed it.
      era.toolSchema = (name) => this.listed.get(name)?.inputSchema as Record<string, unknown> | undefined;
      // A listen stream open again after a gap: a change in between was not heard, so list again (announced only if it changed).
      era.onresumed = () => this.relistSoon(true);
      era.ondiagnostic = (code, message) => this.emit('diagnostic', { code, message: `${this.id}: ${message}` });
      this.era = era;
      const http: unknown = transport;
      if (http instanceof HttpTransport) http.requestHeaders = era.headers;
    }
    transport.ongarbage = (g) => this.emit('diagnostic', { code: 'garbage-line', message: `skipped an inbound message (${g.reason}): ${g.line}` });
    if (this.config.wireLog) transport.onwire = this.config.wireLog;
    transport.onstderr = (chunk) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-8192);
    };
    const client = new Client(
      { name: 'toolcell', version: '0.1.0' },
      {
        capabilities: {
          ...clientCapabilities(this.serverRequests),
          experimental: { mcpl: { version: MCPL_VERSION, toolLifecycle: { observe: true, inputs: true }, featureSets: true } },
        },
      },
    );
    this.client = client;
    installServerRequestHandlers(client, this.id, this.serverRequests, () => this.openCalls);
    client.setRequestHandler(ToolsObserveRequest, (request) => this.handleObserve(request.params));
    client.setNotificationHandler(ToolsListChanged, () => this.relistSoon());
    client.fallbackNotificationHandler = async (notification) => void this.emit('notification', notification);
    client.onerror = (error) => {
      // The SDK reports responses to requests it no longer tracks here (late answers after a timeout).
      this.emit('diagnostic', { code: 'protocol-error', message: error.message });
    };
    client.onclose = () => this.onTransportClosed(epoch, transport);
    const tracker = new CallTracker();
    this.tracker = tracker;
    // A failure of start() is the process not spawning, told apart from a handshake failure.
    let startFailed = false;
    const start = transport.start.bind(transport);
    transport.start = () =>
      start().catch((error: unknown) => {
        startFailed = true;
        throw error;
      });
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options?: TransportSendOptions) => {
      tracker.noteSent(message);
      return send(message, options);
    };
    const timeout = this.config.requestTimeoutMs ?? 30_000;
    // Which request of the connect sequence is in flight, so a failure names it.
    let step = 'initialize';
    try {
      await client.connect(transport, { timeout });
      this.interceptInbound(transport, tracker);
      this.speaksMcpl = isMcplAdvertised(client.getServerCapabilities());
      if (this.speaksMcpl) {
        step = 'featureSets/update';
        await this.exchangePolicy(timeout);
      } else {
        this.becomePlainMcp();
      }
      step = 'tools/list';
      const listing = await this.listTools(timeout);
      this.noteListing(listing);
      // Ready before the tools are announced: whoever hears of them (a gateway telling its
      // clients the provider came up) finds the connection usable.
      this.state = 'ready';
      this.announceTools(listing.tools);
    } catch (error) {
      this.state = 'closed';
      await transport.close(100).catch(() => undefined);
      throw classifyConnectFailure(error, transport.failure, {
        serverId: this.id,
        step,
        target: isHttpConfig(this.config) ? this.config.url : this.config.command,
        spawnFailed: startFailed,
        stderr: this.stderrSuffix(),
      });
    }
  }

  /** Inbound messages meet the call tracker before the SDK (see call-tracker.ts for why). */
  private interceptInbound(transport: HostTransport, tracker: CallTracker): void {
    const deliver = transport.onmessage as ((m: JSONRPCMessage, ...r: unknown[]) => void) | undefined;
    if (!deliver) return;
    transport.onmessage = (message: JSONRPCMessage, ...rest: unknown[]) => {
      if (!tracker.consume(message)) deliver(message, ...rest);
    };
  }

  /** The server's recent stderr, labelled so it never reads as the error itself. */
  private stderrSuffix(): string {
    const lines = this.stderrTail.trim().split('\n').slice(-20).join('\n');
    return lines ? `\nserver stderr (last lines):\n${lines}` : '';
  }

  /**
   * A plain MCP provider: no grant, no lifecycle, no filter. Lifecycle paths the operator
   * named cannot take effect, which the operator hears about once.
   */
  private becomePlainMcp(): void {
    this.exchange = undefined;
    this.lifecycle = undefined;
    this.stateKey = undefined;
    const wanted = (this.policy.enabledCapabilities ?? []).filter((p) => p.startsWith('toolLifecycle'));
    if (wanted.length > 0) {
      this.emit('diagnostic', {
        code: 'plain-mcp',
        message: `${this.id} did not advertise experimental.mcpl: it is a plain MCP provider and ${wanted.join(', ')} has no effect`,
      });
    }
  }

  private onTransportClosed(epoch: number, transport: HostTransport): void {
    if (epoch !== this.epoch) return;
    // A transport lost while connecting is connect()'s failure to report, not a server exit.
    if (this.state === 'connecting') return;
    this.state = 'closed';
    this.policyEstablished = false;
    this.expiry.clear();
    this.queue.stop();
    const exit = transport.exit;
    this.emit('closed', { epoch, code: exit?.code ?? null, signal: exit?.signal ?? null, expected: this.closing });
  }

  /** Computes the grant from the policy and the server's advertisement, and tells the server. */
  private async exchangePolicy(timeout: number): Promise<void> {
    const client = this.client!;
    const advertisement = readAdvertisement(client.getServerCapabilities());
    const exchange = derivePolicyExchange(this.policy, advertisement);
    for (const d of exchange.diagnostics) this.emit("diagnostic", { code: d.code, message: `${this.id}/${d.message}` });
    const hadObserve = this.lifecycle?.observe != null;
    // A reduction takes effect before the server is told; a widening only once it has answered.
    const before = new Set(this.exchange?.effectiveCapabilities ?? []);
    const narrowing = !this.policyEstablished || [...before].some((p) => !exchange.effectiveCapabilities.includes(p));
    if (narrowing) this.applyGrant(exchange, hadObserve);
    await client.request(
      {
        method: 'featureSets/update',
        params: {
          effectiveCapabilities: exchange.effectiveCapabilities,
          deniedCapabilities: exchange.deniedCapabilities,
          enabled: exchange.enabled,
          disabled: exchange.disabled,
        },
      },
      AnyResult,
      { timeout },
    );
    if (!narrowing) this.applyGrant(exchange, hadObserve);
    this.policyEstablished = true;
  }

  private applyGrant(exchange: PolicyExchange, hadObserve: boolean): void {
    this.exchange = exchange;
    this.lifecycle = exchange.lifecycle;
    this.stateKey = undefined;
    if (hadObserve && !exchange.lifecycle.observe && this.filter) {
      // RFC-007 §6.5: revoking observe discards the filter.
      this.filter = null;
      this.stateKey = undefined;
      this.emit('filter', null);
    }
  }

  /** Replaces the operator policy at runtime and re-runs the policy exchange. */
  async setPolicy(policy: OperatorPolicy): Promise<void> {
    const errors = serverConfigErrors({ ...this.config, policy });
    if (errors.length > 0) throw new Error(`policy for server ${this.id} refused: ${errors.join('; ')}`);
    this.policy = policy;
    if (!this.client || this.state !== 'ready' || !this.speaksMcpl) return;
    await this.exchangePolicy(this.config.requestTimeoutMs ?? 30_000);
  }

  private async handleObserve(params: unknown): Promise<Record<string, never>> {
    // Not an MCPL connection: the method does not exist here.
    if (!this.speaksMcpl) throw new McpError(-32601, 'Method not found: tools/observe (this connection is plain MCP)');
    if (!this.policyEstablished) throw new McpError(CAPABILITY_DENIED, 'tools/observe before the initial policy exchange');
    if (!this.lifecycle?.observe) throw new McpError(CAPABILITY_DENIED, 'Capability denied: toolLifecycle.observe');
    const parsed = parseObserveParams(params === undefined ? {} : params, OBSERVE_LIMITS);
    if (!parsed.ok) throw new McpError(parsed.code, parsed.message, parsed.data);
    this.filter = parsed.filter;
    this.stateKey = undefined;
    this.emit('filter', this.filter);
    return {};
  }

  /**
   * A `tools/list_changed` arrived: re-list, coalesced. While a re-list is in flight, any
   * number of further notifications cause one more re-list after it, never one each: a
   * server sending thousands costs a few listings, and the host (and a gateway's clients)
   * hear of a few changes, not thousands.
   */
  private relistSoon(quietIfSame = false): void {
    if (this.relisting) {
      this.relistAgain = true;
      this.relistLoud ||= !quietIfSame;
      return;
    }
    this.relistLoud = !quietIfSame;
    this.relisting = (async () => {
      do {
        this.relistAgain = false;
        const loud = this.relistLoud;
        this.relistLoud = false;
        await this.refreshTools(undefined, !loud);
      } while (this.relistAgain);
    })()
      .catch((error: Error) => void this.emit('diagnostic', { code: 'relist-failed', message: `re-list after list_changed failed: ${error.message}` }))
      .finally(() => {
        this.relisting = undefined;
      });
  }

  /**
   * Lists the server's tools (following pagination) and announces them — unless `quietIfSame`
   * (a re-list because the listing's hint expired) and nothing changed.
   */
  async refreshTools(timeout = this.config.requestTimeoutMs ?? 30_000, quietIfSame = false): Promise<void> {
    if (!this.client) return;
    const listing = await this.listTools(timeout);
    const before = this.listingDigest;
    this.noteListing(listing);
    if (quietIfSame && before === this.listingDigest) return;
    this.announceTools(listing.tools);
  }

  /**
   * The `subscriptions/listen` stream of a 2026 server (transports/listener.ts): whether one is
   * acknowledged, one is asked for, a re-listen waits, and the URIs subscribed. Undefined when
   * the connection does not listen (the handshake era, or a server declaring nothing to hear).
   */
  get listenStatus(): Listener['status'] | undefined {
    return this.era?.listener?.status;
  }

  /** When the server's listing may be stale by its own hint (epoch ms); undefined when it gave none. */
  get toolsFreshUntil(): number | undefined {
    return this.expiry.freshUntil;
  }

  /** Remembers a listing's digest and schedules the re-list its cache hint asks for. */
  private noteListing(listing: { tools: readonly ServerToolListing[]; ttlMs: number | undefined }): void {
    this.listingDigest = createHash('sha256').update(JSON.stringify(listing.tools)).digest('hex');
    this.expiry.schedule(listing.ttlMs, () => this.relistSoon(true));
  }

  /** The tool named `name` (the server's own name) as the server listed it last, every field kept. */
  listedTool(name: string): Readonly<ServerToolListing> | undefined {
    return this.listed.get(name);
  }

  /** Every page of `tools/list`, and the listing's cache hint; no tools for a server without the tools capability. */
  private async listTools(timeout: number): Promise<{ tools: ServerToolListing[]; ttlMs: number | undefined }> {
    const client = this.client;
    if (!client?.getServerCapabilities()?.tools) return { tools: [], ttlMs: undefined };
    const tools: ServerToolListing[] = [];
    const pages: { ttlMs?: unknown }[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsResultSchema, { timeout });
      for (const tool of page.tools) tools.push(tool as ServerToolListing);
      pages.push({ ttlMs: (page as { ttlMs?: unknown }).ttlMs });
      cursor = page.nextCursor;
    } while (cursor);
    return { tools, ttlMs: listingTtl(pages) };
  }

  private announceTools(tools: readonly ServerToolListing[]): void {
    const capabilities = this.client?.getServerCapabilities();
    // A 2026 server takes task calls as the tasks extension (transports/era-tasks.ts), a 2025 one by task augmentation.
    const callsTasks = this.eraState?.era === 'modern' ? serverOffersTasksExtension(capabilities) : serverCallsToolsAsTasks(capabilities);
    const { callable, asTasks, leftOut } = partitionByTaskSupport(tools, callsTasks);
    for (const name of leftOut) {
      this.emit('diagnostic', {
        code: TASK_REQUIRED_UNSUPPORTED,
        message: `${this.id}/${name} not listed: its execution.taskSupport is "required" but the server does not declare ${this.eraState?.era === 'modern' ? `the ${TASKS_EXTENSION} extension` : 'tasks.requests.tools.call'}`,
      });
    }
    this.taskTools = asTasks;
    // A 2026 server's tool whose Mcp-Param header marks are invalid is not used (SEP-2243); the others are.
    const usable = this.eraState?.era === 'modern' ? callable.filter((tool) => {
      const problem = paramHeaderProblem(tool.inputSchema as Record<string, unknown> | undefined);
      if (problem !== undefined) this.emit('diagnostic', { code: INVALID_PARAM_HEADER, message: `${this.id}/${tool.name} not listed: ${problem}` });
      return problem === undefined;
    }) : callable;
    this.listed = new Map(usable.map((tool) => [tool.name, Object.freeze(tool)]));
    this.emit('tools', usable);
  }

  /**
   * Calls one of the server's tools. Rejects when the transport closes, the timeout passes
   * or `options.signal` aborts (the server is then sent `notifications/cancelled`).
   */
  async callTool(name: string, args: Record<string, unknown>, timeoutMs: number, options: CallToolOptions = {}): Promise<ToolResult> {
    const client = this.client;
    if (!client || !this.isConnected) throw new Error(`server ${this.id} is not connected`);
    const { signal, onProgress, onLate, meta, owner } = options;
    if (signal?.aborted) throw new Error('the call was aborted before it was sent');
    // The SDK's request timeout is a Node timer, and a task's is AbortSignal.timeout and a ttl
    // on the wire: Infinity (no timeout, for the host) would fire at once, throw, or be sent as
    // null. The longest delay a timer takes, ~24.8 days, stands in for it.
    timeoutMs = Math.min(timeoutMs, MAX_TIMER_MS);
    const tracker = this.tracker;
    const token = onProgress ? tracker.progressToken(onProgress) : undefined;
    const _meta = token ? { ...meta, progressToken: token } : meta;
    const params = { name, arguments: args, ...(_meta ? { _meta } : {}) };
    tracker.expectCall();
    const open: OpenServerCall = { owner, signal, progressToken: token };
    // In the 2026 era a task call is a plain request the era layer follows as the tasks extension (transports/era-tasks.ts).
    const modernTask = this.taskTools.has(name) && this.eraState?.era === 'modern';
    const result = modernTask
      ? client.request({ method: 'tools/call', params: { ...params, _meta: { ...params._meta, [AS_TASK_META]: true } } }, CallToolResultSchema, {
          timeout: timeoutMs,
          ...(signal ? { signal } : {}),
        })
      : this.taskTools.has(name)
      ? callToolAsTask(client, params, {
          timeoutMs,
          ...(signal ? { signal } : {}),
          // A task's status messages are its progress (2025-11-25 tasks carry no progress counter).
          ...(onProgress ? { onStatus: statusProgress(onProgress) } : {}),
          onCreated: (taskId) => void (open.taskId = taskId),
        })
      : client.request({ method: 'tools/call', params }, CallToolResultSchema, {
          timeout: timeoutMs,
          ...(signal ? { signal } : {}),
        });
    tracker.track(result, token, signal, onLate);
    this.openCalls.add(open);
    try {
      return (await result) as ToolResult;
    } finally {
      this.openCalls.delete(open);
    }
  }

  /** The `instructions` the server gave in `initialize`, if any. */
  get instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  /** The capabilities the server declared in `initialize` (undefined before it answered). */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.client?.getServerCapabilities();
  }

  /** Sends an MCP request and checks its result against `schema` (see gateway-hooks.ts). */
  sendRequest<S extends z.ZodType<object>>(method: string, params: Record<string, unknown> | undefined, schema: S, options: ProviderRequestOptions = {}): Promise<z.infer<S>> {
    const client = this.client;
    if (!client || !this.isConnected) return Promise.reject(new Error(`server ${this.id} is not connected`));
    return sendProviderRequest(client, method, params, schema, { timeoutMs: this.config.requestTimeoutMs ?? 30_000, ...options });
  }

  /** Sends a notification to the server (a gateway passing its client's `notifications/roots/list_changed` on). */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const client = this.client;
    if (!client || !this.isConnected) throw new Error(`server ${this.id} is not connected`);
    await client.notification({ method, ...(params !== undefined ? { params } : {}) });
  }

  /** Sends any request on this connection (custom MCPL methods, test barriers). */
  async request(method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<Record<string, unknown>> {
    const client = this.client;
    if (!client || !this.isConnected) throw new Error(`server ${this.id} is not connected`);
    return client.request({ method, params }, AnyResult, { timeout: timeoutMs ?? this.config.requestTimeoutMs ?? 30_000 });
  }

  /** Closes this transport and connects again: a new epoch, no filter, a fresh policy exchange. */
  async reconnect(): Promise<void> {
    await this.close();
    this.state = 'idle';
    await this.connect();
  }

  /** Writes every queued lifecycle notification now, paced or not, and waits until it is written. */
  flush(): Promise<void> {
    return this.queue.flushNow();
  }

  async close(graceMs = 500): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const transport = this.transport;
    // Give queued notifications a chance to leave, but never wait on a stuck observer.
    await Promise.race([this.queue.flushNow(), new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
    this.queue.stop();
    this.expiry.clear();
    if (transport) await transport.close(graceMs);
    this.state = 'closed';
  }

  /** Kills the server process at once (tests, crash simulation). */
  kill(): void {
    this.transport?.kill();
  }
}
