/**
 * Configuration of one MCP/MCPL server: spawned over stdio (`command`), or remote over
 * Streamable HTTP (`url`). Everything else — policy, classes, timeouts, queue limits,
 * reconnect — means the same for both.
 */
import type { ToolClass } from '../vocabulary/classes.ts';
import type { OperatorPolicy } from '../lifecycle/grants.ts';
import type { WireFrame } from './transports/types.ts';
import { unmatchedEntries } from './capabilities.ts';
import { authProviderErrors } from './auth-provider.ts';
import type { OAuthClientProvider } from './auth.ts';

/** What every server configuration has, whatever its transport. */
export interface ServerConfigBase {
  /** Host identifier for the connection; its tools appear as `<id>--<tool>` (unless {@link prefixTools} is false). */
  id: string;
  /**
   * `false`: the server's tools keep their own names (no `<id>--` prefix), and a gateway
   * exposes its prompts under their own names too. A name another tool already has is
   * skipped with a diagnostic. Default true.
   */
  prefixTools?: boolean;
  /**
   * The operator's policy for this connection (RFC-002 grants, RFC-007 narrowing). Omitted:
   * plain MCP tools only. `toolLifecycle` paths are denied unless named here.
   */
  policy?: OperatorPolicy;
  /** Operator class overrides for this server's tools, by the server's own tool name. */
  classOverrides?: Record<string, readonly ToolClass[]>;
  /**
   * Who may call this server's tools, by the server's own tool name (`"*"` for the rest):
   * `"both"` (default), `"model"` (direct calls only: absent from scripts' declarations) or
   * `"script"` (from scripts only: absent from the model's listing). See `HostToolDefinition.callers`.
   */
  callers?: Record<string, 'both' | 'model' | 'script'>;
  /** Timeout of every host→server request other than `tools/call` (handshake, policy, list). */
  requestTimeoutMs?: number;
  /**
   * Lifecycle notifications that may wait for this observer before new calls are dropped for
   * it. Default: no count bound — the queue is bounded by size ({@link maxQueuedBytes}).
   */
  maxQueuedNotifications?: number;
  /** Size bound of the same queue, in characters of JSON (about bytes; default 16 MiB). */
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
  /** Receives every JSON-RPC message sent to and received from this server (a wire log for debugging and tests). */
  wireLog?: (frame: WireFrame) => void;
  /**
   * An `enabledCapabilities` entry that names no known capability path (a typo, a bare
   * parent such as `toolLifecycle`) is a configuration error, refused before anything is
   * spawned. `false` accepts it instead: it grants nothing and is logged as a warning
   * (RFC-007 §4.1's reading, which the conformance vectors exercise). Default true.
   */
  strictCapabilities?: boolean;
  /**
   * Largest message accepted from the server, in bytes (default 16 MiB): a stdio line, or an
   * HTTP answer (JSON body or SSE event). A larger response fails its request at once, with
   * an error naming the limit and the size; the connection goes on.
   */
  maxMessageBytes?: number;
  /**
   * Which MCP era to speak (docs/mcp-client.md): `"auto"` asks `server/discover` first and
   * speaks 2026-07-28 to a server that lists it, else falls back to the `initialize`
   * handshake (2025-11-25 and older); `"handshake"` goes straight to `initialize`.
   * Default `"handshake"`.
   */
  protocolEra?: 'auto' | 'handshake';
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
  /**
   * OAuth 2.1 for this server: the SDK's client provider, used by the SDK's transport for
   * discovery, registration, token refresh and scope step-up (see docs/oauth.md). A 401 that
   * it cannot resolve fails `connectServer` with a `ConnectError` of code `unauthorized`.
   */
  authProvider?: OAuthClientProvider;
  command?: never;
}

/** One server for {@link ToolHost.connectServer}: spawned over stdio (`command`) or remote over Streamable HTTP (`url`). */
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

/**
 * The mistakes in one server's configuration, each naming its field; empty when it is
 * usable. Checked before anything is spawned (by `ToolHost.connectServer`, and by anyone
 * validating a configuration file up front).
 */
export function serverConfigErrors(config: ServerConfig): string[] {
  const errors: string[] = [];
  const raw = config as unknown as Record<string, unknown>;
  if (typeof raw.id !== 'string' || raw.id === '') errors.push('id: expected a non-empty string');
  else if (raw.id.includes('--')) errors.push(`id: "${raw.id}" must not contain "--" (it separates the server id from its tool names)`);
  const hasCommand = raw.command !== undefined;
  const hasUrl = raw.url !== undefined;
  if (hasCommand === hasUrl) errors.push('command/url: give exactly one — a command to spawn over stdio, or the URL of a Streamable HTTP server');
  if (hasCommand && (typeof raw.command !== 'string' || raw.command === '')) errors.push('command: expected a non-empty string');
  if (hasUrl) {
    let protocol: string | undefined;
    try {
      protocol = new URL(String(raw.url)).protocol;
    } catch {
      errors.push(`url: "${String(raw.url)}" is not a URL`);
    }
    if (protocol !== undefined && protocol !== 'http:' && protocol !== 'https:') errors.push(`url: expected http: or https:, got ${protocol}`);
  }
  if (raw.authProvider !== undefined) {
    if (!hasUrl) errors.push('authProvider: only for a remote (url) server');
    else errors.push(...authProviderErrors(raw.authProvider));
  }
  if (raw.callers !== undefined) {
    if (raw.callers === null || typeof raw.callers !== 'object' || Array.isArray(raw.callers)) errors.push('callers: expected an object of tool name → "both" | "model" | "script"');
    else {
      for (const [tool, who] of Object.entries(raw.callers)) {
        if (who !== 'both' && who !== 'model' && who !== 'script') errors.push(`callers.${tool}: expected "both", "model" or "script", got ${JSON.stringify(who)}`);
      }
    }
  }
  const enabled = config.policy?.enabledCapabilities;
  if (enabled !== undefined && !Array.isArray(enabled)) errors.push('policy.enabledCapabilities: expected an array of capability paths');
  else if (enabled !== undefined && config.strictCapabilities !== false) {
    for (const entry of unmatchedEntries(enabled)) {
      errors.push(
        `policy.enabledCapabilities: ${JSON.stringify(entry)} names no known capability path (use a full path such as "toolLifecycle.observe", or "toolLifecycle.*")`,
      );
    }
  }
  return errors;
}
