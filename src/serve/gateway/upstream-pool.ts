/**
 * Upstream sessions: serve's own MCP sessions with a provider, one per client session that
 * uses it (`"upstreamSessions": { "mode": "per-client" }`, the default over HTTP), so that a
 * stateful provider keeps each client's state, roots, log level and subscriptions apart. Each
 * is a connection of its own — for a spawned provider, a process of its own. Their number per
 * provider is bounded ({@link DEFAULT_MAX_UPSTREAM_SESSIONS} spawned,
 * {@link DEFAULT_MAX_REMOTE_UPSTREAM_SESSIONS} remote, or the server's `upstreamSessions.max`);
 * past it, a client's use of that provider is refused with an error
 * naming the bound, never served from another client's session.
 */
import type { Logger } from 'pino';
import { McplConnection } from '../../mcpl/connection.ts';
import { isHttpConfig } from '../../mcpl/config.ts';
import type { ServerRequestHandlers } from '../../mcpl/client-features/types.ts';
import type { ProviderNotification } from '../../mcpl/gateway-hooks.ts';
import type { GatewayServerConfig } from './connect-servers.ts';

/**
 * Upstream sessions a spawned provider may have at once, by default. Each is a process of its
 * own — for server-everything, measured ~67 MiB resident (docs/serve-gateway.md).
 */
export const DEFAULT_MAX_UPSTREAM_SESSIONS = 16;

/**
 * Upstream sessions a remote (Streamable HTTP) provider may have at once, by default: each is
 * an MCP session, a few KiB in serve (and what the provider keeps per session). Higher than for
 * spawned ones, since clients that never end their session (no DELETE) hold theirs until serve
 * reaps them idle.
 */
export const DEFAULT_MAX_REMOTE_UPSTREAM_SESSIONS = 256;

/** A client's use of a provider refused: its upstream sessions are all taken. */
export class UpstreamLimitError extends Error {
  override name = 'UpstreamLimitError';
  constructor(
    readonly serverId: string,
    readonly max: number,
  ) {
    super(`server ${serverId} has all of its ${max} upstream sessions in use by other clients (its "upstreamSessions.max"); try again when one of their sessions ends`);
  }
}

/** What an upstream session tells the client session that owns it. */
export interface UpstreamEvents {
  notification: (notification: ProviderNotification) => void;
  /** Its transport closed (the provider exited, or the session was released). */
  closed: () => void;
}

export class UpstreamPool {
  private readonly configs: Map<string, GatewayServerConfig>;
  private readonly open = new Map<string, number>();

  constructor(
    servers: readonly GatewayServerConfig[],
    private readonly logger: Logger,
  ) {
    this.configs = new Map(servers.map((s) => [s.id, s]));
  }

  /** Whether `serverId`'s clients each get their own upstream session (false: they share serve's connection). */
  perClient(serverId: string): boolean {
    const config = this.configs.get(serverId);
    return config !== undefined && config.upstreamSessions?.mode !== 'shared';
  }

  /** Upstream sessions of `serverId` open or opening now. */
  count(serverId: string): number {
    return this.open.get(serverId) ?? 0;
  }

  /** The bound on `serverId`'s upstream sessions. */
  max(serverId: string): number {
    const config = this.configs.get(serverId);
    return config?.upstreamSessions?.max ?? (config && isHttpConfig(config) ? DEFAULT_MAX_REMOTE_UPSTREAM_SESSIONS : DEFAULT_MAX_UPSTREAM_SESSIONS);
  }

  /**
   * Opens an upstream session with `serverId` whose requests go to `handlers` and whose
   * notifications and end go to `events`. Rejects past the bound, or with the connection's error.
   */
  async connect(serverId: string, handlers: ServerRequestHandlers, events: UpstreamEvents): Promise<McplConnection> {
    const config = this.configs.get(serverId);
    if (!config) throw new Error(`no server with id "${serverId}"`);
    const max = this.max(serverId);
    if (this.count(serverId) >= max) {
      throw new UpstreamLimitError(serverId, max);
    }
    this.open.set(serverId, this.count(serverId) + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = this.count(serverId) - 1;
      if (left > 0) this.open.set(serverId, left);
      else this.open.delete(serverId);
    };
    const connection = new McplConnection(config, handlers);
    connection.on('notification', (n) => events.notification(n));
    connection.on('diagnostic', (d) => this.logger.debug({ serverId, code: d.code }, `upstream session: ${d.message}`));
    connection.on('closed', () => {
      release();
      events.closed();
    });
    try {
      await connection.connect();
    } catch (error) {
      release();
      throw error;
    }
    return connection;
  }
}
