/**
 * The gateway's notifications, both ways. Every MCP session of serve joins the hub; what a
 * provider announces reaches the sessions it concerns:
 * - `notifications/message` during a call to that provider goes to the client whose call it is,
 *   related to its `tools/call` (over HTTP it rides that request's stream); outside any call
 *   it goes to every session;
 * - `notifications/resources/updated` goes to the sessions subscribed to that URI;
 * - resource, prompt and tool `list_changed` go to every session (a provider's tool change
 *   arrives as the host's re-list, so the listing a client then fetches is already new);
 * - a provider that connects after sessions exist (a late start, a reconnect) is announced to
 *   every session as `tools/list_changed`, and `resources/list_changed` and
 *   `prompts/list_changed` when it offers those; one that goes away likewise, since its tools,
 *   resources and prompts leave the lists meanwhile. It is given the last logging level a
 *   client set.
 * A session's own `logging/setLevel` and subscriptions are forwarded by handlers.ts.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { LoggingLevel, ServerCapabilities, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ToolHost } from '../../host/tool-host.ts';
import type { ProviderNotification } from '../../mcpl/gateway-hooks.ts';
import { GatewayCatalog, PassThrough } from './catalog.ts';
import { gatewayCapabilities } from './capabilities.ts';
import { CallOwners } from './server-requests.ts';

/** A call in flight to a provider: where its provider's log messages go. */
type CallSink = (notification: ServerNotification) => Promise<void>;

interface Member {
  server: Server;
  /** What the session was told serve offers. */
  capabilities: ServerCapabilities;
  subscriptions: Set<string>;
  /** Set once its transport was seen connected: a member without one since has closed. */
  wasConnected: boolean;
}

export class GatewayHub {
  readonly catalog: GatewayCatalog;

  private readonly members = new Set<Member>();
  private readonly callsTo = new Map<string, Set<CallSink>>();
  private readonly detach: () => void;
  /** The transport epoch of each provider last announced, to tell a (re)connect from a re-list. */
  private readonly announcedEpoch = new Map<string, number>();
  /** The logging level a client set last, applied to providers that connect later. */
  logLevel: LoggingLevel | undefined;

  constructor(
    readonly host: ToolHost,
    private readonly logger: Logger,
    prefixed: (serverId: string) => boolean,
    /** Which client runs which conversation's call: where a provider's requests are forwarded. */
    readonly owners: CallOwners = new CallOwners(),
    /** Configured servers not connected now that may still connect (serve is retrying them). */
    private readonly awaited: () => readonly string[] = () => [],
  ) {
    this.catalog = new GatewayCatalog(host, prefixed);
    const onNotification = (info: { serverId: string; notification: ProviderNotification }) => this.fromProvider(info.serverId, info.notification);
    const onTools = (info: { serverId: string }) => this.providerListed(info.serverId);
    const onClosed = (info: { serverId: string }) => this.providerGone(info.serverId);
    host.on('server-notification', onNotification);
    host.on('server-tools', onTools);
    host.on('server-closed', onClosed);
    this.detach = () => {
      host.off('server-notification', onNotification);
      host.off('server-tools', onTools);
      host.off('server-closed', onClosed);
    };
  }

  /** What a session starting now is told serve offers (see capabilities.ts). */
  capabilities(): ServerCapabilities {
    return gatewayCapabilities(this.host, this.awaited());
  }

  /** Adds a session's server; the returned function removes it (the session ended). */
  join(server: Server, capabilities: ServerCapabilities): { subscriptions: Set<string>; leave: () => void } {
    const member: Member = { server, capabilities, subscriptions: new Set(), wasConnected: false };
    this.members.add(member);
    return { subscriptions: member.subscriptions, leave: () => void this.members.delete(member) };
  }

  /** Sessions in the hub now (tests check that ended and refused sessions leave it). */
  get memberCount(): number { return this.members.size; }

  /** Whether another session still subscribes to `uri` (the provider's subscription is shared). */
  subscribed(uri: string): boolean {
    for (const m of this.members) if (m.subscriptions.has(uri)) return true;
    return false;
  }

  /** A call to `serverId` is running; its provider's log messages go to `sink` until the returned function is called. */
  callStarted(serverId: string, sink: CallSink): () => void {
    let sinks = this.callsTo.get(serverId);
    if (!sinks) this.callsTo.set(serverId, (sinks = new Set()));
    sinks.add(sink);
    return () => {
      sinks.delete(sink);
      if (sinks.size === 0 && this.callsTo.get(serverId) === sinks) this.callsTo.delete(serverId);
    };
  }

  close(): void {
    this.detach();
    this.members.clear();
  }

  /** A provider's tools were listed: a re-list, or the first listing of a new connection. */
  private providerListed(serverId: string): void {
    this.broadcast((server) => server.sendToolListChanged());
    const connection = this.host.server(serverId);
    if (!connection || this.announcedEpoch.get(serverId) === connection.epoch) return;
    this.announcedEpoch.set(serverId, connection.epoch);
    const offered = connection.serverCapabilities;
    this.announceFeatures(offered);
    if (offered?.logging && this.logLevel !== undefined) {
      this.host.requestServer(serverId, 'logging/setLevel', { level: this.logLevel }, PassThrough).catch((error: Error) =>
        this.logger.warn({ serverId, err: error }, `server ${serverId} did not take the logging level clients asked for`),
      );
    }
  }

  /** A provider's transport closed: its tools, resources and prompts are gone from the lists until it is back. */
  private providerGone(serverId: string): void {
    this.broadcast((server) => server.sendToolListChanged());
    this.announceFeatures(this.host.server(serverId)?.serverCapabilities);
  }

  private announceFeatures(offered: ServerCapabilities | undefined): void {
    if (offered?.resources) this.broadcast((server) => server.sendResourceListChanged(), 'resources');
    if (offered?.prompts) this.broadcast((server) => server.sendPromptListChanged(), 'prompts');
  }

  private fromProvider(serverId: string, notification: ProviderNotification): void {
    const params = notification.params ?? {};
    switch (notification.method) {
      case 'notifications/message': {
        const calls = this.callsTo.get(serverId);
        const message = { method: 'notifications/message', params } as ServerNotification;
        if (calls && calls.size > 0) for (const sink of calls) this.deliver(sink(message));
        else this.broadcast((server) => server.notification(message));
        return;
      }
      case 'notifications/resources/updated': {
        const uri = String(params.uri);
        for (const m of this.members) if (m.subscriptions.has(uri)) this.deliver(m.server.sendResourceUpdated({ ...params, uri }));
        return;
      }
      case 'notifications/resources/list_changed':
        this.broadcast((server) => server.sendResourceListChanged());
        return;
      case 'notifications/prompts/list_changed':
        this.broadcast((server) => server.sendPromptListChanged());
        return;
      default:
        this.logger.debug({ serverId, method: notification.method }, 'provider notification not passed through');
    }
  }

  /** Sends to every session; with `feature`, to those that were told serve has it (the others cannot be told of it). */
  private broadcast(send: (server: Server) => Promise<void>, feature?: 'resources' | 'prompts'): void {
    for (const m of this.members) {
      // A session whose transport is not connected yet cannot be told; one that closed has left.
      if (!m.server.transport) {
        if (m.wasConnected) this.members.delete(m);
        continue;
      }
      m.wasConnected = true;
      if (feature && !m.capabilities[feature]) continue;
      this.deliver(send(m.server));
    }
  }

  private deliver(sent: Promise<void>): void {
    sent.catch((error: Error) => this.logger.debug({ err: error }, 'a notification could not be delivered to a client'));
  }
}
