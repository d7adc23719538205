/** Configuration of one MCP/MCPL server the host spawns over stdio. */
import type { ToolClass } from '../vocabulary/classes.ts';
import type { OperatorPolicy } from '../lifecycle/grants.ts';

export interface ServerConfig {
  /** Host identifier for the connection; its tools appear as `<id>--<tool>`. */
  id: string;
  command: string;
  args?: string[];
  /** Extra environment variables. The child does not inherit the host's environment beyond {@link ServerConfig.inheritEnv}. */
  env?: Record<string, string>;
  /** Host variables passed through; defaults to PATH, HOME, LANG, TMPDIR, NODE_OPTIONS-free basics. */
  inheritEnv?: string[];
  cwd?: string;
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
  /** Size bound of the same queue, in characters of JSON (about bytes; default 4 MiB). */
  maxQueuedBytes?: number;
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
}

/** Variables a server inherits from the host unless configured otherwise. */
export const DEFAULT_INHERITED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TERM', 'USER', 'LOGNAME', 'SHELL'];

export function childEnvironment(config: ServerConfig): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of config.inheritEnv ?? DEFAULT_INHERITED_ENV) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return { ...env, ...(config.env ?? {}) };
}
