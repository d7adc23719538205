/**
 * One client session of the gateway: its SDK server, what it was told serve offers, its calls
 * running now, its subscriptions and log level, its `list_changed` coalescing, its catalog, and
 * its upstream sessions (per-client providers over HTTP, see upstream-pool.ts). Everything a
 * provider sends on one of its upstream sessions is this client's — which of its requests it
 * belongs to decides only the stream it rides — and nothing of it goes to another client.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { LoggingLevel, RequestId, ServerCapabilities, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { McplConnection } from '../../mcpl/connection.ts';
import type { ServerRequestContext } from '../../mcpl/client-features/types.ts';
import type { ProviderNotification } from '../../mcpl/gateway-hooks.ts';
import { GatewayCatalog, PassThrough, type ProvidersOf } from './catalog.ts';
import { ListChanges, type ListKind } from './list-changed.ts';
import { forwardServerRequests, type RequestTarget } from './server-requests.ts';
import type { UpstreamPool } from './upstream-pool.ts';

/** One of the client's `tools/call` requests running now. */
export interface RunningCall {
  conversationId: string;
  requestId: RequestId;
  /** The provider the called tool belongs to; undefined for serve's own tools (`code_execution`). */
  serverId: string | undefined;
  /** Sends a notification related to this request (over HTTP: on its stream). */
  sink: (notification: ServerNotification) => Promise<void>;
  /**
   * Set when the call runs as the client's task (serve/gateway-tasks.ts): its request was
   * answered with the task, so a provider's request for it waits for the client's
   * `tasks/result`, and `asking` marks the task `input_required` until it is answered.
   */
  task?: { taskId: string; asking: () => () => void };
}

/** What a client session needs of the gateway around it. */
export interface SessionContext {
  pool: UpstreamPool;
  logger: Logger;
  /** serve's own connection to a provider (shared providers, and every provider on stdio). */
  shared: (serverId: string) => McplConnection | undefined;
  providers: ProvidersOf;
  prefixed: (serverId: string) => boolean;
  /** Whether this client's requests reach `serverId` through an upstream session of its own. */
  ownUpstream: (serverId: string) => boolean;
}

export class ClientSession {
  readonly subscriptions = new Set<string>();
  readonly calls: RunningCall[] = [];
  readonly catalog: GatewayCatalog;
  readonly changes: ListChanges;
  /** The level this client set, applied to its upstream sessions (and to those opened later). */
  logLevel: LoggingLevel | undefined;
  /** Set once its transport was seen connected: a session without one since has closed. */
  wasConnected = false;
  private readonly upstream = new Map<string, Promise<McplConnection>>();
  private ended = false;

  constructor(
    /** The session's own conversation id: its calls' conversations are this one or `<key>/<name>`. */
    readonly key: string,
    readonly server: Server,
    /** What the session was told serve offers. */
    readonly capabilities: ServerCapabilities,
    private readonly context: SessionContext,
  ) {
    this.catalog = new GatewayCatalog((id, method, params, signal) => this.ask(id, method, params, signal), context.providers, context.prefixed);
    this.changes = new ListChanges((kind) => this.sendListChanged(kind), context.logger);
  }

  /** The connection this client's requests to `serverId` go through: its own upstream session, opened on first use, or serve's. */
  connection(serverId: string): Promise<McplConnection> {
    if (this.ended) return Promise.reject(new Error(`the client session ended; server ${serverId} is not reached for it`));
    if (!this.context.ownUpstream(serverId)) {
      const shared = this.context.shared(serverId);
      return shared ? Promise.resolve(shared) : Promise.reject(new Error(`no server with id "${serverId}"`));
    }
    let connection = this.upstream.get(serverId);
    if (connection === undefined) {
      connection = this.openUpstream(serverId);
      this.upstream.set(serverId, connection);
      // A failed open is not kept: the next use tries again.
      connection.catch(() => {
        if (this.upstream.get(serverId) === connection) this.upstream.delete(serverId);
      });
    }
    return connection;
  }

  /** Sends `method` to `serverId` for this client; the result as the provider sent it. */
  async ask(serverId: string, method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const connection = await this.connection(serverId);
    return (await connection.sendRequest(method, params, PassThrough, signal ? { signal } : {})) as Record<string, unknown>;
  }

  /** Connections opened for this client (its upstream sessions that finished connecting). */
  async openUpstreams(): Promise<McplConnection[]> {
    const settled = await Promise.allSettled([...this.upstream.values()]);
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }

  /** Upstream sessions open or opening now. */
  get upstreamCount(): number {
    return this.upstream.size;
  }

  /** The providers this client has an upstream session with (opened, or opening). */
  upstreamServers(): string[] {
    return [...this.upstream.keys()];
  }

  /** A call started: provider messages and requests for it ride its request until the returned function is called. */
  callStarted(call: RunningCall): () => void {
    this.calls.push(call);
    return () => {
      const at = this.calls.indexOf(call);
      if (at >= 0) this.calls.splice(at, 1);
    };
  }

  /**
   * The request of this client a provider message or request belongs to: the latest call of
   * the conversation it was attributed to, else the latest call to that provider, else the
   * latest call (a script's `code_execution`); none: the session as a whole.
   */
  relatedCall(serverId: string, conversationId?: string): RunningCall | undefined {
    const latest = (match: (c: RunningCall) => boolean) => {
      for (let i = this.calls.length - 1; i >= 0; i--) if (match(this.calls[i]!)) return this.calls[i];
      return undefined;
    };
    return (conversationId !== undefined ? latest((c) => c.conversationId === conversationId) : undefined) ?? latest((c) => c.serverId === serverId) ?? latest(() => true);
  }

  /** Where a request that arrived on one of this client's upstream sessions goes: to this client (a task's call: through its `tasks/result`). */
  target(ctx: ServerRequestContext): RequestTarget {
    const call = this.relatedCall(ctx.serverId, ctx.conversationId);
    if (call?.task) return { server: this.server, relatedRequestId: undefined, task: call.task };
    return { server: this.server, relatedRequestId: call?.requestId };
  }

  /** A provider's log message for this client, related to the call it most likely belongs to. */
  log(serverId: string, params: Record<string, unknown>): void {
    const message = { method: 'notifications/message', params } as ServerNotification;
    const call = this.relatedCall(serverId);
    this.deliver(call ? call.sink(message) : this.server.notification(message));
  }

  /** A notification a provider sent on one of this client's upstream sessions. */
  private fromUpstream(serverId: string, notification: ProviderNotification): void {
    const params = notification.params ?? {};
    switch (notification.method) {
      case 'notifications/message':
        return this.log(serverId, params);
      case 'notifications/resources/updated':
        if (this.subscriptions.has(String(params.uri))) this.deliver(this.server.sendResourceUpdated({ ...params, uri: String(params.uri) }));
        return;
      case 'notifications/resources/list_changed':
        return this.changes.changed('resources');
      case 'notifications/prompts/list_changed':
        return this.changes.changed('prompts');
      default:
        this.context.logger.debug({ serverId, method: notification.method }, 'provider notification not passed through');
    }
  }

  private async openUpstream(serverId: string): Promise<McplConnection> {
    const handlers = forwardServerRequests((ctx) => this.target(ctx));
    const connection = await this.context.pool.connect(serverId, handlers, {
      notification: (n) => this.fromUpstream(serverId, n),
      closed: () => {
        const held = this.upstream.get(serverId);
        void held?.then((c) => {
          if (c === connection && this.upstream.get(serverId) === held) this.upstream.delete(serverId);
        });
      },
    });
    this.context.logger.info({ conversationId: this.key, serverId }, `upstream session with ${serverId} opened for a client`);
    if (this.ended) {
      // The client left while it connected: nobody will use it.
      await connection.close();
      throw new Error(`the client session ended; server ${serverId} is not reached for it`);
    }
    if (this.logLevel !== undefined && connection.serverCapabilities?.logging) {
      await connection.sendRequest('logging/setLevel', { level: this.logLevel }, PassThrough);
    }
    return connection;
  }

  /** The session ended: its upstream sessions are closed, and nothing more is sent to it. Resolves once they are. */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.changes.stop();
    this.calls.length = 0;
    const held = [...this.upstream.values()];
    this.upstream.clear();
    await Promise.all(held.map((p) => p.then((c) => c.close(), () => undefined)));
  }

  private sendListChanged(kind: ListKind): Promise<void> {
    if (kind === 'tools') return this.server.sendToolListChanged();
    if (kind === 'resources') return this.server.sendResourceListChanged();
    return this.server.sendPromptListChanged();
  }

  deliver(sent: Promise<void>): void {
    sent.catch((error: Error) => this.context.logger.debug({ err: error }, 'a notification could not be delivered to a client'));
  }
}
