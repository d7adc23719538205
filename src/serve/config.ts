/**
 * Loads `toolcell serve`'s configuration file: JSON checked against the schema, every mistake
 * reported on its own line with its full path, before anything is spawned. Turns the parsed file
 * into what the host takes (server configs, code_execution options).
 */
import { ClientCredentialsProvider, PrivateKeyJwtProvider, TokenFileProvider, readSecretFile, type InteractiveAuthOptions } from '../mcpl/auth/index.ts';
import type { OAuthClientProvider } from '../mcpl/auth.ts';
import { readFileSync } from 'node:fs';
import { jsonErrorPlace } from './json-error.ts';
import { dirname, resolve } from 'node:path';
import type { HttpServerConfig, StdioServerConfig } from '../mcpl/config.ts';
import type { GatewayServerConfig } from './gateway/connect-servers.ts';
import type { CodeExecutionOptions } from '../code-execution/index.ts';
import type { ScriptCaps } from '../runtime/isolation/index.ts';
import { ServeConfigSchema, serverIdProblems, type ParsedServer } from './config-schema.ts';
import { boundsHint, formatIssues, formatPath } from './config-issues.ts';

/**
 * A server in the file: spawned over stdio (`command`) or reached over Streamable HTTP (`url`),
 * and whether serve needs it. `interactiveAuth`: its authorization is a person's, with a
 * loopback listener serve starts before connecting it (see interactive-auth.ts).
 */
export type ServeServerConfig = GatewayServerConfig & { interactiveAuth?: InteractiveAuthOptions };

export interface ServeConfig {
  conversationId: string;
  servers: ServeServerConfig[];
  codeExecution: CodeExecutionOptions | false;
  /**
   * Script-runtime choices for `registerCodeExecution`: `engine` (which JavaScript engine runs
   * scripts) and `isolation` (the OS layer around script processes). Empty when the file names
   * neither.
   */
  runtime: { engine?: 'quickjs' | 'v8'; isolation?: 'auto' | 'bwrap' | 'none' };
  /** Which calls wait for the client's user (tools by `*` pattern, classes); absent, none do. */
  approvals?: { tools?: string[]; classes?: string[]; answerTimeoutMs?: number };
  /** `serve --http`'s bounds and allowed origins; absent keys keep serveHttp's defaults (docs/serve.md). */
  http?: ServeHttpConfig;
  /** OTLP/HTTP export of every call as a span, and of the metrics; absent, serve never loads OpenTelemetry. */
  telemetry?: { otlp: { url: string; headers?: Record<string, string>; metricsIntervalMs?: number } };
  /**
   * Where runs waiting for approval are kept (docs/durable.md): `sqlite:<file>` (relative to the
   * config file's folder) or `postgres://…`; absent, they wait in this process's memory.
   */
  store?: string;
}

/** The config file's `http` block, as `serveHttp` takes it. */
export interface ServeHttpConfig {
  allowedOrigins?: string[];
  maxSessions?: number;
  maxSessionsPerClient?: number;
  maxRequestsPerSession?: number;
  maxConversationsPerSession?: number;
  maxBodyBytes?: number;
  maxBufferedBodyBytes?: number;
  bodyTimeoutMs?: number;
  headersTimeoutMs?: number;
  idleSessionMs?: number;
}

/** A config file that cannot be used; `problems` has one `path: what` line per mistake. */
export class ServeConfigError extends Error {
  override name = 'ServeConfigError';
  constructor(
    readonly path: string,
    readonly problems: readonly string[],
  ) {
    super(`invalid config ${path}:\n  ${problems.join('\n  ')}`);
  }
}

export const DEFAULT_SERVE_CONFIG: ServeConfig = { conversationId: 'serve', servers: [], codeExecution: {}, runtime: {} };

/** Checks an already-read value; `base` resolves relative `cwd`s. Throws {@link ServeConfigError}. */
export function parseServeConfig(raw: unknown, source: string, base: string): ServeConfig {
  const parsed = ServeConfigSchema.safeParse(raw, { reportInput: true });
  const idLines = serverIdProblems(raw).map((p) => `${formatPath(p.path)}: ${p.message}`);
  if (!parsed.success || idLines.length > 0) {
    const lines = parsed.success ? [] : formatIssues(parsed.error.issues, boundsHint(ServeConfigSchema));
    throw new ServeConfigError(source, [...new Set([...lines, ...idLines])]);
  }
  const data = parsed.data;
  let codeExecution: CodeExecutionOptions | false = false;
  const runtime: ServeConfig['runtime'] = {};
  if (data.codeExecution !== false) {
    const { engine, isolation, python, caps, ...options } = data.codeExecution;
    if (engine !== undefined) runtime.engine = engine;
    if (isolation !== undefined) runtime.isolation = isolation;
    codeExecution = { ...options, ...(python !== undefined ? { python: { python } } : {}), ...(caps ? { caps: configCaps(caps) } : {}) };
  }
  return {
    conversationId: data.conversationId,
    servers: data.servers.map((s) => toServerConfig(s, base)),
    codeExecution,
    runtime,
    ...(data.approvals ? { approvals: data.approvals } : {}),
    ...(data.http ? { http: definedKeys(data.http) } : {}),
    ...(data.telemetry ? { telemetry: { otlp: telemetryOtlp(data.telemetry.otlp) } } : {}),
    // A relative SQLite path is the config file's neighbour, as every other path in it.
    ...(data.store !== undefined ? { store: data.store.startsWith('sqlite:') ? `sqlite:${resolve(base, data.store.slice('sqlite:'.length))}` : data.store } : {}),
  };
}

/** The keys the file gave (the config types are exact: no `undefined` values). */
function definedKeys<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

/** The file's caps: JSON has no Infinity, so `null` lifts a cap. */
function configCaps(caps: Record<string, number | null | undefined>): ScriptCaps {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(caps)) if (value !== undefined) out[key] = value === null ? Infinity : value;
  return out as ScriptCaps;
}

function toServerConfig(server: ParsedServer, base: string): ServeServerConfig {
  const { url, headers, auth, command, cwd, ...rest } = server;
  if (url !== undefined) {
    const interactive = auth?.type === 'interactive' ? interactiveOptions(auth, base) : undefined;
    const provider = auth && auth.type !== 'interactive' ? authProvider(auth, base) : undefined;
    return { ...rest, url, ...(headers ? { headers } : {}), ...(provider ? { authProvider: provider } : {}), ...(interactive ? { interactiveAuth: interactive } : {}) } as HttpServerConfig;
  }
  return { ...rest, command: command!, ...(cwd !== undefined ? { cwd: resolve(base, cwd) } : {}) } as StdioServerConfig;
}

type Auth = NonNullable<ParsedServer['auth']>;

/**
 * A secret file's trimmed contents, read now so a missing file, or one other users can read or
 * change, is refused before anything starts.
 */
function readSecret(file: string, base: string, key: 'clientSecretFile' | 'privateKeyFile' = 'clientSecretFile'): string {
  try {
    return readSecretFile(key === 'privateKeyFile' ? 'private key file' : 'secret file', resolve(base, file)).trim();
  } catch (error) {
    throw new Error(`auth.${key}: ${(error as Error).message}`, { cause: error });
  }
}

/** The interactive provider's options from an `"auth": { "type": "interactive" }` key. */
function interactiveOptions(auth: Extract<Auth, { type: 'interactive' }>, base: string): InteractiveAuthOptions {
  const secret = auth.clientSecretFile !== undefined ? readSecret(auth.clientSecretFile, base) : undefined;
  return {
    ...(auth.redirectPort !== undefined ? { redirectPort: auth.redirectPort } : {}),
    ...(auth.scopes ? { scopes: auth.scopes } : {}),
    ...(auth.clientName !== undefined ? { clientName: auth.clientName } : {}),
    ...(auth.clientMetadataUrl !== undefined ? { clientMetadataUrl: auth.clientMetadataUrl } : {}),
    ...(auth.clientId !== undefined ? { clientInformation: { client_id: auth.clientId, ...(secret !== undefined ? { client_secret: secret } : {}) } } : {}),
    ...(auth.issuer !== undefined ? { issuer: auth.issuer } : {}),
    authorizationTimeoutMs: auth.authorizationTimeoutMs ?? 300_000,
  };
}

/** The provider a server's `auth` key selects; files are resolved against the config's folder, the secret read now. */
function authProvider(auth: Exclude<Auth, { type: 'interactive' }>, base: string): OAuthClientProvider {
  if (auth.type === 'token_file') return new TokenFileProvider(resolve(base, auth.path));
  if (auth.type === 'private_key_jwt') {
    const privateKey = readSecret(auth.privateKeyFile, base, 'privateKeyFile');
    return new PrivateKeyJwtProvider({ clientId: auth.clientId, privateKey, algorithm: auth.algorithm, ...(auth.scope ? { scope: auth.scope } : {}), ...(auth.issuer ? { expectedIssuer: auth.issuer } : {}) });
  }
  const clientSecret = readSecret(auth.clientSecretFile, base);
  return new ClientCredentialsProvider({ clientId: auth.clientId, clientSecret, ...(auth.scope ? { scope: auth.scope } : {}), ...(auth.issuer ? { expectedIssuer: auth.issuer } : {}) });
}

/** Reads and checks a config file; relative `cwd`s are resolved against the file's folder. */
export function loadServeConfig(path: string | undefined): ServeConfig {
  if (path === undefined) return { ...DEFAULT_SERVE_CONFIG };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read config ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // Line and column, what was expected, and the line with a caret: JSON.parse's own message
    // gives a character position on some Node versions and only a quote on others.
    const at = jsonErrorPlace(text);
    if (at === undefined) throw new ServeConfigError(path, [`not JSON: ${(error as Error).message}`]);
    throw new ServeConfigError(path, [`not JSON at line ${at.line}, column ${at.column}: ${at.reason}`, `  ${at.excerpt}`, `  ${' '.repeat(at.caret)}^`]);
  }
  return parseServeConfig(raw, path, dirname(resolve(path)));
}

/** The `telemetry.otlp` block without the keys the file left out (the config types are exact). */
function telemetryOtlp(otlp: { url: string; headers?: Record<string, string> | undefined; metricsIntervalMs?: number | undefined }): NonNullable<ServeConfig['telemetry']>['otlp'] {
  return {
    url: otlp.url,
    ...(otlp.headers ? { headers: otlp.headers } : {}),
    ...(otlp.metricsIntervalMs !== undefined ? { metricsIntervalMs: otlp.metricsIntervalMs } : {}),
  };
}
