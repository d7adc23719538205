/**
 * The shape of `toolcell serve`'s configuration file, as zod schemas. A server is either spawned
 * (`command`) or remote (`url`), never both; ids are unique and free of `--` (tool names are
 * `<id>--<tool>`), so every mistake is found before anything is spawned.
 */
import { z } from 'zod';
import { canonicalOrigin } from './auth.ts';
import { storeUrlProblem } from '../store/open.ts';

const Narrowing = z.object({
  tools: z.array(z.string()).optional(),
  classes: z.union([z.array(z.string()), z.literal('default')]).optional(),
  conversations: z.array(z.string()).optional(),
}).strict();

/** Keys both kinds of server take. */
const common = {
  id: z.string().min(1),
  policy: z.object({
    enabledCapabilities: z.array(z.string()).optional(),
    toolLifecycle: z.object({ observe: Narrowing.optional(), inputs: Narrowing.optional() }).strict().optional(),
  }).strict().optional(),
  classOverrides: z.record(z.string(), z.array(z.string())).optional(),
  /** Who may call each tool (by the server's own name, `"*"` for the rest): model, script or both. */
  callers: z.record(z.string(), z.enum(['both', 'model', 'script'])).optional(),
  requestTimeoutMs: z.number().positive().optional(),
  maxQueuedNotifications: z.number().positive().optional(),
  maxObservedCallsPerSecond: z.number().positive().optional(),
  reconnect: z.object({ maxAttempts: z.number().int().min(1).optional(), delayMs: z.number().min(0).optional() }).strict().optional(),
  /** `false`: tools and prompts keep the server's own names (no `<id>--` prefix). */
  prefixTools: z.boolean().optional(),
  /** `"auto"`: ask `server/discover` first and speak MCP 2026-07-28 to a server that offers it; `"handshake"` (default): `initialize`. docs/mcp-client.md. */
  protocolEra: z.enum(['auto', 'handshake']).optional(),
  /** `true`: serve does not start without this server (otherwise it serves the rest and retries). */
  required: z.boolean().optional(),
  /** serve --http: one upstream session per client session (default) or one shared by all; see docs/serve-gateway.md. */
  upstreamSessions: z.object({ mode: z.enum(['per-client', 'shared']).optional(), max: z.number().int().min(1).optional() }).strict().optional(),
};

/** Keys only a spawned server takes. */
const PROCESS_KEYS = ['command', 'args', 'env', 'inheritEnv', 'cwd'] as const;

/**
 * A person authorizes in a browser: serve prints the authorization URL on stderr and waits for
 * the redirect on a loopback listener (docs/oauth.md). A pre-registered client (`clientId`)
 * was registered with one redirect URI, so it needs the listener on a fixed `redirectPort`.
 */
const InteractiveAuth = z.object({
  type: z.literal('interactive'),
  /** Port of the loopback redirect listener on 127.0.0.1; absent or 0, a free one. */
  redirectPort: z.number().int().min(0).max(65535).optional(),
  /** Scopes asked for when the server names none. */
  scopes: z.array(z.string().min(1)).min(1).optional(),
  clientName: z.string().min(1).optional(),
  /** An HTTPS URL of this client's metadata document (used as client_id where the server supports it). */
  clientMetadataUrl: z.url({ protocol: /^https$/ }).optional(),
  /** A pre-registered client instead of dynamic registration. */
  clientId: z.string().min(1).optional(),
  /** The pre-registered client's secret, for a confidential client. */
  clientSecretFile: z.string().min(1).optional(),
  /** The only authorization server (issuer URL) this client may use; absent, a pre-registered client is held to the first one used. */
  issuer: z.url({ protocol: /^https?$/ }).optional(),
  /** How long serve waits for the person to authorize before the server counts as refused (default 5 minutes). */
  authorizationTimeoutMs: z.number().int().min(1000).optional(),
}).strict().superRefine((auth, ctx) => {
  if (auth.clientSecretFile !== undefined && auth.clientId === undefined) {
    ctx.addIssue({ code: 'custom', path: ['clientSecretFile'], message: 'a client secret belongs to a pre-registered client: give "clientId" too' });
  }
  if (auth.clientId !== undefined && !auth.redirectPort) {
    ctx.addIssue({ code: 'custom', path: ['redirectPort'], message: 'a pre-registered client ("clientId") needs a fixed "redirectPort": its registered redirect URI is http://127.0.0.1:<redirectPort>/callback' });
  }
});

/** OAuth for a remote server (docs/oauth.md): one of the providers toolcell ships. */
const Auth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('client_credentials'), clientId: z.string().min(1), clientSecretFile: z.string().min(1), scope: z.string().optional(), issuer: z.url({ protocol: /^https?$/ }).optional() }).strict(),
  z.object({ type: z.literal('token_file'), path: z.string().min(1) }).strict(),
  /** Client credentials authenticated by a JWT signed with the client's private key (PEM file). */
  z.object({
    type: z.literal('private_key_jwt'),
    clientId: z.string().min(1),
    privateKeyFile: z.string().min(1),
    algorithm: z.enum(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']),
    scope: z.string().optional(),
    issuer: z.url({ protocol: /^https?$/ }).optional(),
  }).strict(),
  InteractiveAuth,
]);

const Server = z.object({
  ...common,
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  inheritEnv: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  url: z.url({ protocol: /^https?$/ }).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  auth: Auth.optional(),
}).strict().superRefine((server, ctx) => {
  if (server.command !== undefined && server.url !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['url'], message: 'a server is either spawned ("command") or remote ("url"), not both' });
  } else if (server.command === undefined && server.url === undefined) {
    ctx.addIssue({ code: 'custom', path: [], message: 'a server needs "command" (spawned over stdio) or "url" (remote, Streamable HTTP)' });
  } else if (server.url !== undefined) {
    for (const key of PROCESS_KEYS) {
      if (server[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `only a spawned ("command") server takes "${key}"; this one is remote ("url")` });
    }
  } else {
    for (const key of ['headers', 'auth'] as const) {
      if (server[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `only a remote ("url") server takes "${key}"` });
    }
  }
});

const CodeExecution = z.object({
  languages: z.array(z.enum(['javascript', 'python'])).min(1).optional(),
  defaultTimeLimitMs: z.number().min(1000).optional(),
  maxTimeLimitMs: z.number().min(1000).optional(),
  innerCallTimeoutMs: z.number().positive().optional(),
  innerCallGraceMs: z.number().min(0).optional(),
  jsPoolSize: z.number().int().min(1).optional(),
  maxResultChars: z.number().int().min(1).optional(),
  /** Largest script accepted, in UTF-8 bytes; a larger one is refused (invalid_request). */
  maxCodeBytes: z.number().int().min(1).optional(),
  /** Bytes of content (images, audio, resources, text) one script may return as content blocks. */
  maxContentBytes: z.number().int().min(1).optional(),
  /** Most tool calls one script may open; the next is refused. */
  maxCallsPerExecution: z.number().int().min(0).optional(),
  /** Longest description before it lists tools by name and summary only. */
  maxDescriptionChars: z.number().int().min(1).optional(),
  /** A second script in a busy conversation waits its turn (serve's default) or is refused. */
  whenBusy: z.enum(['wait', 'refuse']).optional(),
  /** How long a script waits for its turn before it is refused. */
  busyWaitMs: z.number().positive().optional(),
  /** The JavaScript engine scripts run in. */
  engine: z.enum(['quickjs', 'v8']).optional(),
  /** OS-level isolation of script processes: `auto` uses bubblewrap when it works here. */
  isolation: z.enum(['auto', 'bwrap', 'none']).optional(),
  /** Kernel-enforced caps on each Python interpreter and JavaScript sandbox process (docs/security.md, "Caps"); a number, or null to lift one. */
  caps: z.object({
    memoryBytes: z.number().int().min(64 * 1024 * 1024).nullable().optional(),
    processes: z.number().int().min(1).nullable().optional(),
    cpuSeconds: z.number().int().min(1).nullable().optional(),
    tmpBytes: z.number().int().min(1).nullable().optional(),
  }).strict().optional(),
  /** The Python interpreter to run (a path or a name on PATH). */
  python: z.string().min(1).optional(),
  /** How long a conversation's session (VM, interpreter) is kept without a run. */
  sessionIdleMs: z.number().positive().optional(),
  /** Warm Python interpreters kept at most (least recently used idle one ended past it). */
  maxPythonInterpreters: z.number().int().min(1).optional(),
  /** The shared pool of JavaScript sandbox processes. */
  jsPool: z.object({
    maxProcesses: z.number().int().min(1).optional(),
    runsPerProcess: z.number().int().min(1).optional(),
    maxQueued: z.number().int().min(0).optional(),
    queueTimeoutMs: z.number().min(0).optional(),
    idleVmMs: z.number().min(0).optional(),
    idleProcessMs: z.number().min(0).optional(),
    minProcesses: z.number().int().min(0).optional(),
  }).strict().optional(),
}).strict();

/** Which calls wait for the MCP client's user (an `elicitation/create` form). */
const Approvals = z.object({
  /** Tool names (`*` patterns) that need approval. */
  tools: z.array(z.string().min(1)).optional(),
  /** Tool classes that need approval. */
  classes: z.array(z.string().min(1)).optional(),
  /** How long the client's user may take to answer before it counts as declined (default 10 minutes). */
  answerTimeoutMs: z.number().positive().optional(),
}).strict();

/** `serve --http`'s bounds and allowed origins (docs/serve.md, "What a peer can cost"); each absent key keeps its default. */
const Http = z.object({
  /** Origins (`scheme://host[:port]`) whose browser pages may call serve, besides loopback ones. */
  allowedOrigins: z.array(z.string().refine((o) => canonicalOrigin(o) !== undefined, 'must be an origin: http(s)://host[:port], without path, query or credentials')).optional(),
  /** Sessions open at once (default 128). */
  maxSessions: z.number().int().min(1).optional(),
  /** Sessions one client (bearer token, or address without one) may hold (default 32). */
  maxSessionsPerClient: z.number().int().min(1).optional(),
  /** Conversations one session may use, its own included (default 65). */
  maxConversationsPerSession: z.number().int().min(1).optional(),
  /** HTTP requests one session may have open at once (default 32). */
  maxRequestsPerSession: z.number().int().min(1).optional(),
  /** Largest request body in bytes (default 4 MiB). */
  maxBodyBytes: z.number().int().min(1024).optional(),
  /** Bytes of request bodies held at once, all connections together (default 64 MiB). */
  maxBufferedBodyBytes: z.number().int().min(1024).optional(),
  /** Time from a request's headers to its body's last byte, in ms (default 30 000). */
  bodyTimeoutMs: z.number().int().min(100).optional(),
  /** Time for a request's headers to arrive, in ms (default 15 000). */
  headersTimeoutMs: z.number().int().min(100).optional(),
  /** A session with no open request for this long is ended, in ms (default 30 minutes). */
  idleSessionMs: z.number().int().min(1000).optional(),
}).strict();

export const ServeConfigSchema = z.object({
  /** Conversation id for calls whose request names none (`_meta["agent-framework/conversationId"]`). */
  conversationId: z.string().min(1).default('serve'),
  servers: z.array(Server).default([]),
  /** `false` leaves code_execution out. */
  codeExecution: z.union([z.literal(false), CodeExecution]).default({}),
  /** `serve --http` only: bounds on what a peer can cost, and the origins allowed besides loopback. */
  http: Http.optional(),
  /** Calls that need the client's user's approval; absent, nothing waits. */
  approvals: Approvals.optional(),
  /** Where runs waiting for approval are kept: `sqlite:<file>` or `postgres://…` (docs/durable.md). */
  store: z.string().superRefine((url, ctx) => {
    const problem = storeUrlProblem(url);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `${problem}, got ${JSON.stringify(url.replace(/\/\/[^@/]*@/, '//…@'))}` });
  }).optional(),
  /** OpenTelemetry: every call as a span, and the metrics, exported over OTLP/HTTP (src/telemetry/). */
  telemetry: z.object({
    otlp: z.object({
      url: z.string().url().refine((u) => /^https?:/.test(u), 'must be an http or https URL'),
      headers: z.record(z.string(), z.string()).optional(),
      /** How often metrics are pushed, in ms (default 60 000). */
      metricsIntervalMs: z.number().int().min(100).optional(),
    }).strict(),
  }).strict().optional(),
}).strict();

/**
 * Server ids must be unique and free of `--`. Checked on the raw value, beside the schema, so
 * these mistakes are reported together with every other one (zod skips refinements of an
 * object whose fields already failed).
 */
export function serverIdProblems(raw: unknown): { path: (string | number)[]; message: string }[] {
  const servers = (raw as { servers?: unknown } | null)?.servers;
  if (!Array.isArray(servers)) return [];
  const problems: { path: (string | number)[]; message: string }[] = [];
  const first = new Map<string, number>();
  servers.forEach((server, index) => {
    const id = (server as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id === '') return;
    if (id.includes('--')) problems.push({ path: ['servers', index, 'id'], message: `"${id}" must not contain "--" (tool names are <id>--<tool>)` });
    const earlier = first.get(id);
    if (earlier !== undefined) problems.push({ path: ['servers', index, 'id'], message: `"${id}" is already the id of servers[${earlier}]` });
    else first.set(id, index);
  });
  return problems;
}

export type ParsedServeConfig = z.infer<typeof ServeConfigSchema>;
export type ParsedServer = ParsedServeConfig['servers'][number];
