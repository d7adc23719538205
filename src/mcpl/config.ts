/**
 * Configuration of one MCP/MCPL server: spawned over stdio (`command`), or remote over
 * Streamable HTTP (`url`). Everything else — policy, classes, timeouts, queue limits,
 * reconnect — means the same for both.
 */
import type { ToolClass } from '../vocabulary/classes.ts';
import type { OperatorPolicy } from '../lifecycle/grants.ts';
import type { WireFrame } from './transports/types.ts';

/** What every server configuration has, whatever its transport. */
export interface ServerConfigBase {
  /** Host identifier for the connection; its tools appear as `<id>--<tool>`. */
  id: string;
  /**
   * The operator's policy for this connection (RFC-002 grants, RFC-007 narrowing). Omitted:
   * plain MCP tools only. `toolLifecycle` paths are denied unless named here.
   */
  policy?: OperatorPolicy;
  /** Operator class overrides for this server's tools, by the server's own tool name. */
  classOverrides?: Record<string, readonly ToolClass[]>;
  /** Timeout of every host→server request other than `tools/call` (handshake, policy, list). */
  requestTimeoutMs?: number;
  /** Lifecycle notifications that may wait for this observer before new calls are dropped for it (default 10,000). */
  maxQueuedNotifications?: number;
  /**
   * Calls per second this observer hears about before whole calls are dropped for it and
   * counted (RFC-007 §7.4). Default 1,000; `Infinity` for no limit.
   */
  maxObservedCallsPerSecond?: number;
  /**
   * Reconnect after the server exits unexpectedly: up to `maxAttempts` times (default 3),
   * waiting `delayMs` (default 200) before the first and doubling after each failure. Each
   * reconnect is a new transport epoch with a fresh policy exchange. Omitted: no reconnect.
   */
  reconnect?: { maxAttempts?: number; delayMs?: number };
  /** Receives every JSON-RPC message sent to and received from this server (a wire log for debugging and tests). */
  wireLog?: (frame: WireFrame) => void;
}

/** A server the host spawns and speaks to over its stdin/stdout. */
export interface StdioServerConfig extends ServerConfigBase {
  command: string;
  args?: string[];
  /** Extra environment variables. The child does not inherit the host's environment beyond {@link StdioServerConfig.inheritEnv}. */
  env?: Record<string, string>;
  /** Host variables passed through; defaults to PATH, HOME, LANG, TMPDIR, NODE_OPTIONS-free basics. */
  inheritEnv?: string[];
  cwd?: string;
  url?: never;
}

/** A remote server reached over MCP Streamable HTTP. */
export interface HttpServerConfig extends ServerConfigBase {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
  url: string;
  /** Sent with every request (an `Authorization` header, for instance). */
  headers?: Record<string, string>;
  command?: never;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig;

/** Whether a config names a remote server. */
export function isHttpConfig(config: ServerConfig): config is HttpServerConfig {
  return typeof (config as HttpServerConfig).url === 'string';
}

/** Variables a server inherits from the host unless configured otherwise. */
export const DEFAULT_INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TERM', 'USER', 'LOGNAME', 'SHELL'];

export function childEnvironment(config: StdioServerConfig): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of config.inheritEnv ?? DEFAULT_INHERITED_ENV) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return { ...env, ...(config.env ?? {}) };
}
