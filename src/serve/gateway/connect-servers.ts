/**
 * serve's startup: every configured server connects at once, so one slow server does not
 * delay the others. A server marked `"required": true` that fails makes startup fail with its
 * error; any other failure is logged and retried in the background per the server's
 * `reconnect` policy (a server without one is tried once), while serve serves the rest — its
 * tools appear, and clients are told (`tools/list_changed`), when it comes up. Two servers
 * exposing a tool under the same name (`"prefixTools": false`) is a configuration error naming
 * both.
 */
import type { Logger } from 'pino';
import type { ToolHost } from '../../host/tool-host.ts';
import type { ServerConfig } from '../../mcpl/config.ts';

/**
 * A server as serve's config gives it: the host's config, whether serve may start without it,
 * and how its clients reach it over HTTP (one upstream session each, the default, or shared;
 * see upstream-pool.ts).
 */
export type GatewayServerConfig = ServerConfig & {
  required?: boolean;
  upstreamSessions?: { mode?: 'per-client' | 'shared'; max?: number };
};

/** Two servers (or a server and a host tool) offering one name. */
export class ToolNameCollisionError extends Error {
  override name = 'ToolNameCollisionError';
  constructor(readonly collisions: readonly { tool: string; servers: readonly string[] }[]) {
    super(
      `tool names collide (give one of the servers "prefixTools": true, the default):\n  ${collisions
        .map((c) => `${c.tool}: offered by ${c.servers.map((s) => (s === '' ? 'a toolcell tool' : `server "${s}"`)).join(' and ')}`)
        .join('\n  ')}`,
    );
  }
}

export interface ConnectedServers {
  /** Ids of the servers being retried now (not connected yet, not given up on). */
  awaited(): string[];
  /** Stops the background retries (serve is shutting down). */
  stop(): void;
  /** Resolves when every background retry has ended (tests). */
  settled: Promise<void>;
}

/** Connects `servers` in parallel. Rejects with the first required server's error, or a {@link ToolNameCollisionError}. */
export async function connectServers(host: ToolHost, servers: readonly GatewayServerConfig[], logger: Logger): Promise<ConnectedServers> {
  let stopped = false;
  const wakers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });
  const collisions: { tool: string; servers: string[] }[] = [];
  const onCollision = (info: { serverId: string; tool: string; ownerServerId: string | undefined }) =>
    collisions.push({ tool: info.tool, servers: [info.ownerServerId ?? '', info.serverId] });
  host.on('name-collision', onCollision);

  const retries: Promise<void>[] = [];
  const awaited = new Set<string>();
  const retry = async (server: GatewayServerConfig) => {
    awaited.add(server.id);
    try {
      await retryUntilConnected(server);
    } finally {
      awaited.delete(server.id);
    }
  };
  const retryUntilConnected = async (server: GatewayServerConfig) => {
    const attempts = server.reconnect?.maxAttempts ?? 3;
    let delay = server.reconnect?.delayMs ?? 200;
    for (let attempt = 1; attempt <= attempts && !stopped; attempt++) {
      await sleep(delay);
      if (stopped) return;
      try {
        await host.connectServer(server);
        logger.info({ serverId: server.id, attempt }, `server ${server.id} connected on retry ${attempt}`);
        return;
      } catch (error) {
        logger.warn({ serverId: server.id, attempt, attempts }, `server ${server.id}: retry ${attempt} of ${attempts} failed: ${(error as Error).message}`);
        delay *= 2;
      }
    }
    if (!stopped) logger.error({ serverId: server.id }, `server ${server.id} did not connect; serving without it`);
  };

  try {
    const outcomes = await Promise.allSettled(servers.map((server) => host.connectServer(server)));
    const failedRequired = outcomes.findIndex((o, i) => o.status === 'rejected' && servers[i]!.required === true);
    if (failedRequired >= 0) throw (outcomes[failedRequired] as PromiseRejectedResult).reason;
    if (collisions.length > 0) throw new ToolNameCollisionError(collisions);
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') return;
      const server = servers[i]!;
      const message = (outcome.reason as Error).message;
      if (!server.reconnect) {
        logger.error({ serverId: server.id }, `${message}; serving without it (no "reconnect" policy, so it is not retried)`);
        return;
      }
      logger.error({ serverId: server.id }, `${message}; serving without it meanwhile, retrying`);
      retries.push(retry(server));
    });
  } finally {
    host.off('name-collision', onCollision);
  }
  return {
    awaited: () => [...awaited],
    stop: () => {
      stopped = true;
      for (const wake of wakers) wake();
    },
    settled: Promise.all(retries).then(() => undefined),
  };
}
