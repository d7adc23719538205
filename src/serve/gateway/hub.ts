/**
 * The gateway's client sessions and what providers send them. Clients never meet:
 * - over HTTP (several clients), a provider is reached by each client through an upstream
 *   session of its own (client-session.ts, upstream-pool.ts) unless configured `shared`; what
 *   a provider sends on it — log messages, resource updates, list changes, elicitation,
 *   sampling and roots requests — goes to that client alone;
 * - on serve's own (shared) connection to a provider, a request goes to a client only when it
 *   names the call it belongs to (its progress token or related task); anything else is
 *   declined, never guessed from which calls happen to be open. Log messages there carry
 *   nothing naming a call, so they are not forwarded to any client over HTTP;
 * - on stdio there is one client: everything goes to it.
 * Tool `list_changed` (serve's listing follows serve's own connections) and a provider coming
 * or going are told to every client, coalesced per client (list-changed.ts). A client session
 * joins when it initializes and leaves when its conversation ends (the host's
 * `conversation-ended`, which serve emits as a session ends), releasing its upstream sessions.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, type LoggingLevel, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ToolHost } from '../../host/tool-host.ts';
import type { McplConnection } from '../../mcpl/connection.ts';
import type { ServerRequestContext } from '../../mcpl/client-features/types.ts';
import type { ProviderNotification } from '../../mcpl/gateway-hooks.ts';
import { PassThrough } from './catalog.ts';
import { gatewayCapabilities, providersOf } from './capabilities.ts';
import { ClientSession } from './client-session.ts';
import type { GatewayServerConfig } from './connect-servers.ts';
import type { ListKind } from './list-changed.ts';
import type { RequestTarget } from './server-requests.ts';
import { UpstreamPool } from './upstream-pool.ts';

export interface GatewayOptions {
  /** Whether a server's names carry its `<id>--` prefix (false for `prefixTools: false`). */
  prefixed: (serverId: string) => boolean;
  /** Configured servers not connected now that may still connect (serve is retrying them). */
  awaited?: () => readonly string[];
  /** The configured servers (their `upstreamSessions`). */
  servers?: readonly GatewayServerConfig[];
  /** Several clients (HTTP): per-client upstream sessions, strict attribution. False: stdio, one client. */
  multiClient: boolean;
}

export class GatewayHub {
  readonly pool: UpstreamPool;
  /**
   * Joined sessions by slot: a session's key, or — when a session joins under a key another
   * holds (on stdio every session of the one client shares its conversation: the 2025 session
   * and each 2026-era request's) — the key and a number, so neither displaces the other.
   */
  private readonly members = new Map<string, ClientSession>();
  private readonly slots = new WeakMap<ClientSession, string>();
  private extraSlots = 0;
  private readonly detach: () => void;
  /** The transport epoch of each provider last announced, to tell a (re)connect from a re-list. */
  private readonly announcedEpoch = new Map<string, number>();
  /** On stdio: the logging level the client set last, applied to providers that connect later. */
  private logLevel: LoggingLevel | undefined;

  constructor(
    readonly host: ToolHost,
    private readonly logger: Logger,
    private readonly options: GatewayOptions,
  ) {
    this.pool = new UpstreamPool(options.servers ?? [], logger);
    const onNotification = (info: { serverId: string; notification: ProviderNotification }) => this.fromProvider(info.serverId, info.notification);
    const onTools = (info: { serverId: string }) => this.providerListed(info.serverId);
    const onClosed = (info: { serverId: string }) => this.providerGone(info.serverId);
    const onEnded = (info: { conversationId: string }) => void this.leave(info.conversationId);
    host.on('server-notification', onNotification);
    host.on('server-tools', onTools);
    host.on('server-closed', onClosed);
    host.on('conversation-ended', onEnded);
    const unroute = options.multiClient ? host.routeCalls((serverId, conversationId) => this.route(serverId, conversationId)) : () => undefined;
    this.detach = () => {
      unroute();
      host.off('server-notification', onNotification);
      host.off('server-tools', onTools);
      host.off('server-closed', onClosed);
      host.off('conversation-ended', onEnded);
    };
  }

  /** What a session starting now is told serve offers (see capabilities.ts). */
  capabilities(): ServerCapabilities {
    return gatewayCapabilities(this.host, this.options.awaited?.() ?? []);
  }

  /**
   * The providers' `instructions`, combined: each under a line naming its server, in
   * configuration order; undefined when none gave any.
   */
  instructions(): string | undefined {
    const parts = this.host
      .servers()
      .filter((c) => typeof c.instructions === 'string' && c.instructions.trim() !== '')
      .map((c) => `## Instructions of server "${c.id}"\n\n${c.instructions!.trim()}`);
    return parts.length > 0 ? parts.join('\n\n') : undefined;
  }

  /** A new client session (not yet joined: see {@link join}). `key` is its own conversation id. */
  session(key: string, server: Server, capabilities: ServerCapabilities): ClientSession {
    return new ClientSession(key, server, capabilities, {
      pool: this.pool,
      logger: this.logger,
      shared: (id) => this.host.server(id),
      providers: (feature) => providersOf(this.host, feature),
      prefixed: this.options.prefixed,
      ownUpstream: (id) => this.options.multiClient && this.pool.perClient(id),
    });
  }

  /**
   * The session initialized: from now on it is told of changes. On stdio, serve's connections
   * were made before the client came, so a provider that asked for roots then was declined:
   * a client with roots is announced to them as a roots change, and they ask it.
   */
  join(member: ClientSession): void {
    const held = this.members.get(member.key);
    const slot = held !== undefined && held !== member ? `${member.key}#${++this.extraSlots}` : member.key;
    this.slots.set(member, slot);
    this.members.set(slot, member);
    if (!this.options.multiClient && member.server.getClientCapabilities()?.roots) void this.rootsChanged(member);
  }

  /**
   * The client's roots changed (or became known): its upstream sessions are told, and on stdio
   * serve's own connections (the one client's). Over HTTP serve's shared connections are not:
   * they belong to no one client.
   */
  async rootsChanged(member: ClientSession): Promise<void> {
    const targets = this.options.multiClient ? await member.openUpstreams() : this.host.servers().filter((c) => c.isConnected);
    await Promise.all(
      targets.map((c) =>
        c.notify('notifications/roots/list_changed').catch((error: Error) => this.logger.debug({ serverId: c.id, err: error }, 'a roots change could not be passed to a server')),
      ),
    );
  }

  /** The conversation `key` ended: its sessions leave, are told nothing more, and their upstream sessions are closed. */
  async leave(key: string): Promise<void> {
    const leaving = [...this.members].filter(([, m]) => m.key === key);
    for (const [slot] of leaving) this.members.delete(slot);
    await Promise.all(leaving.map(([, m]) => m.end()));
  }

  /**
   * `member` leaves, if it is still the session joined under its key (a 2026-era request's
   * session, modern/, leaves this way when it is answered; another session under the same key
   * is left in place).
   */
  async leaveMember(member: ClientSession): Promise<void> {
    const slot = this.slots.get(member);
    if (slot !== undefined && this.members.get(slot) === member) this.members.delete(slot);
    await member.end();
  }

  /** Client sessions joined now. */
  get memberCount(): number {
    return this.members.size;
  }

  /** The client session that owns `conversationId` (its own, or `<own>/<name>`); on stdio, the one client. */
  memberOf(conversationId: string): ClientSession | undefined {
    if (!this.options.multiClient) return this.members.values().next().value;
    const own = this.members.get(conversationId);
    if (own) return own;
    for (let at = conversationId.lastIndexOf('/'); at > 0; at = conversationId.lastIndexOf('/', at - 1)) {
      const member = this.members.get(conversationId.slice(0, at));
      if (member) return member;
    }
    return undefined;
  }

  /** Whether another session still subscribes to `uri` on a shared connection (the provider's subscription is shared). */
  subscribed(uri: string): boolean {
    for (const m of this.members.values()) if (m.subscriptions.has(uri)) return true;
    return false;
  }

  /** Sets the client's level on what it reaches: its upstream sessions, and on stdio serve's own connections. */
  async setLogLevel(member: ClientSession, level: LoggingLevel, signal: AbortSignal): Promise<void> {
    member.logLevel = level;
    const targets = providersOf(this.host, 'logging').filter((id) => !this.options.multiClient || member.upstreamServers().includes(id));
    if (!this.options.multiClient) this.logLevel = level;
    const results = await Promise.allSettled(targets.map((id) => member.ask(id, 'logging/setLevel', { level }, signal)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed && results.every((r) => r.status === 'rejected')) throw failed.reason;
  }

  /**
   * Where a request on serve's own connection to a provider goes. On stdio: the one client. Over
   * HTTP: the client whose call the request names (progress token, related task); one that
   * names none is declined — the one call open to that provider is not proof it is its.
   */
  sharedTarget(ctx: ServerRequestContext, what: string): RequestTarget {
    if (!this.options.multiClient) {
      // The one client's sessions: the one with a call to this provider running (latest joined
      // first: a 2026-era request's own session), else the first joined.
      const joined = [...this.members.values()];
      const member = [...joined].reverse().find((m) => m.calls.some((c) => c.serverId === ctx.serverId)) ?? joined[0];
      if (!member) throw new McpError(ErrorCode.InvalidRequest, `${what} declined: server ${ctx.serverId} asked while no MCP client is connected to toolcell`);
      return member.target(ctx);
    }
    const member = ctx.attributedBy === 'meta' && ctx.conversationId !== undefined ? this.memberOf(ctx.conversationId) : undefined;
    if (!member) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${what} declined: server ${ctx.serverId} asked on toolcell's shared connection without naming the call it belongs to (no progress token or related task of an open call), so no client can be told it is theirs`,
      );
    }
    return member.target(ctx);
  }

  /** Routes a call over HTTP: a per-client provider's call goes through its client's own upstream session. */
  private route(serverId: string, conversationId: string): Promise<McplConnection> | undefined {
    if (!this.pool.perClient(serverId)) return undefined;
    const member = this.memberOf(conversationId);
    if (!member) throw new Error(`no client session of toolcell owns conversation ${conversationId}, so server ${serverId} has no upstream session for it`);
    return member.connection(serverId);
  }

  close(): void {
    this.detach();
    for (const key of [...this.members.keys()]) void this.leave(key);
  }

  /** A provider's tools were listed: a re-list, or the first listing of a new connection. */
  private providerListed(serverId: string): void {
    this.changed('tools');
    const connection = this.host.server(serverId);
    if (!connection || this.announcedEpoch.get(serverId) === connection.epoch) return;
    this.announcedEpoch.set(serverId, connection.epoch);
    const offered = connection.serverCapabilities;
    this.announceFeatures(offered);
    if (offered?.logging && this.logLevel !== undefined) {
      this.host.requestServer(serverId, 'logging/setLevel', { level: this.logLevel }, PassThrough).catch((error: Error) =>
        this.logger.warn({ serverId, err: error }, `server ${serverId} did not take the logging level its client asked for`),
      );
    }
  }

  /** A provider's transport closed: its tools, resources and prompts are gone from the lists until it is back. */
  private providerGone(serverId: string): void {
    this.changed('tools');
    this.announceFeatures(this.host.server(serverId)?.serverCapabilities);
  }

  private announceFeatures(offered: ServerCapabilities | undefined): void {
    if (offered?.resources) this.changed('resources');
    if (offered?.prompts) this.changed('prompts');
  }

  /** A notification on serve's own connection to `serverId`. */
  private fromProvider(serverId: string, notification: ProviderNotification): void {
    const params = notification.params ?? {};
    // Over HTTP a per-client provider's own connection serves no client: each hears its own session.
    const perClient = this.options.multiClient && this.pool.perClient(serverId);
    switch (notification.method) {
      case 'notifications/message': {
        if (this.options.multiClient) {
          this.logger.debug({ serverId }, 'a log message on a shared connection names no client: not forwarded');
          return;
        }
        this.memberOf('')?.log(serverId, params);
        return;
      }
      case 'notifications/resources/updated': {
        if (perClient) return;
        const uri = String(params.uri);
        for (const m of this.members.values()) if (m.subscriptions.has(uri)) m.deliver(m.server.sendResourceUpdated({ ...params, uri }));
        return;
      }
      case 'notifications/resources/list_changed':
        if (!perClient) this.changed('resources');
        return;
      case 'notifications/prompts/list_changed':
        if (!perClient) this.changed('prompts');
        return;
      default:
        this.logger.debug({ serverId, method: notification.method }, 'provider notification not passed through');
    }
  }

  /** Tells every session a list changed, coalesced per session; only sessions told serve has the feature. */
  private changed(kind: ListKind): void {
    for (const m of this.members.values()) {
      // A session whose transport is not connected yet cannot be told; one that closed has left.
      if (!m.server.transport) {
        if (m.wasConnected) void this.leaveMember(m);
        continue;
      }
      m.wasConnected = true;
      if (kind !== 'tools' && !m.capabilities[kind]) continue;
      m.changes.changed(kind);
    }
  }
}
