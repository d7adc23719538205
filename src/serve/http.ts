/**
 * Serve mode over Streamable HTTP (the SDK's server transport on a plain node:http server, at
 * `/mcp`). Each MCP session is its own conversation (`<conversationPrefix>-<random id>`, never the
 * session id, which is the session's credential; a named conversation lives inside it) with its
 * own SDK server and transport, so sessions run `code_execution` side by side.
 *
 * Who may connect: a bind off loopback needs a bearer token (refused at start otherwise); a
 * configured token is checked on every request, 401 otherwise. A loopback bind without a token
 * still checks the Host header, so a web page cannot reach it through DNS rebinding.
 *
 * A browser page is refused (403) unless its `Origin` is loopback or configured.
 *
 * What a peer can cost is bounded (docs/security.md, "serve over HTTP"): bodies in bytes and
 * time while they stream (http-body.ts), headers in time, sessions in total and per client
 * (session-caps.ts), requests per session, conversations per session (session.ts).
 *
 * How calls end: a client's `notifications/cancelled` aborts that call; a POST whose connection
 * drops before its answer aborts the calls it carried (nothing could ever deliver their answer:
 * there is no event store to resume from); a session's end (DELETE, transport close, idle
 * reaping, shutdown) aborts all of its calls and releases everything it held (session.ts).
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Logger } from 'pino';
import type { ToolHost } from '../host/tool-host.ts';
import { bearerChecker, clientIdentity, isLoopbackHost, originChecker } from './auth.ts';
import { DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS_PER_CLIENT, SessionCaps } from './session-caps.ts';
import { endServeSession, ServeSession } from './session.ts';
import type { ServeClients } from './approval-clients.ts';
import { createToolServer, type AroundDispatch } from './tool-server.ts';
import { BodyBudget, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_BUFFERED_BODY_BYTES, HttpFailure, parseJson, readBody } from './http-body.ts';
import type { GatewayHub } from './gateway/hub.ts';
import { modernEndpoint } from './modern/serve-endpoint.ts';
import type { DurablePauses } from './modern/durable.ts';
import { answerModernHttp } from './modern/http.ts';
import { isModernRequest } from './modern/wire.ts';

/**
 * Time (ms) for a request's headers to arrive by default; node's own default is 60 s. A peer
 * that opens connections and trickles headers holds each for at most this long.
 */
export const DEFAULT_HEADERS_TIMEOUT_MS = 15_000;

/** The path MCP is served at. */
export const MCP_PATH = '/mcp';

export interface HttpServeOptions {
  host: string;
  /** 0 picks a free port (see {@link HttpServing.url}). */
  port: number;
  /** Bearer token every request must carry. Required when `host` is not loopback. */
  token?: string;
  /** Each session's conversation id is `<conversationPrefix>-<random id>` (not its session id). */
  conversationPrefix: string;
  logger: Logger;
  /**
   * Told once per session that ended, after everything it held was released: its calls
   * aborted, its hub membership, and every conversation it used ended on the host.
   */
  onSessionEnd?: (session: ServeSession) => void | Promise<void>;
  /** Largest request body accepted (default 4 MiB); a larger one gets 413 as it crosses the limit. */
  maxBodyBytes?: number;
  /** Bytes of request bodies held at once across all connections (default 64 MiB); past it, 503. */
  maxBufferedBodyBytes?: number;
  /** Time from a request's headers to its body's last byte (default 30 s); later, 408. */
  bodyTimeoutMs?: number;
  /** Time for a request's headers to arrive (default 15 s); later, 408 (node's `headersTimeout`). */
  headersTimeoutMs?: number;
  /**
   * Origins (`scheme://host[:port]`) whose pages may call serve, besides loopback ones; a
   * request with any other `Origin` gets 403. Absent: loopback origins only.
   */
  allowedOrigins?: readonly string[];
  /** Sessions open at once (default 128); past it, `initialize` gets 503. */
  maxSessions?: number;
  /** Sessions one client — its bearer token, or its address without a token — may hold (default 32); past it, 429. */
  maxSessionsPerClient?: number;
  /** Conversations one session may use, its own included (default 65: its own and 64 it names); past it, the call is refused. */
  maxConversationsPerSession?: number;
  /** HTTP requests one session may have open at once, its event stream included (default 32); past it, 429. */
  maxRequestsPerSession?: number;
  /** A session with no open HTTP request for this long is closed (default 30 minutes). */
  idleSessionMs?: number;
  /** Wraps each call's dispatch (telemetry: the client's trace context as its parent). */
  aroundDispatch?: AroundDispatch;
  /** Set when approvals are configured: each session's client is asked for its own calls. */
  clients?: ServeClients;
  /** Passes the providers' resources, prompts, completion and logging through (gateway/). */
  gateway?: GatewayHub;
  /** With a store: 2026-era runs waiting for approval are stored and resumed by replay at any instance (modern/durable.ts). */
  durable?: DurablePauses;
}

export interface HttpServing {
  /** `http://host:port/mcp`, with the port actually bound. */
  readonly url: string;
  /** Sessions open now. */
  sessionCount(): number;
  /** Ends every session (aborting their calls) and stops listening. */
  close(): Promise<void>;
}

interface SessionEntry {
  session: ServeSession;
  transport: StreamableHTTPServerTransport;
  server: Server;
  openRequests: number;
  lastSeen: number;
  /** Gives the session's place back to the caps (idempotent). */
  release: () => void;
}

/**
 * HTTP requests one session may have open at once by default (POSTs awaiting answers, its
 * event stream). Each holds a response stream and its call's state; past it, 429.
 */
export const DEFAULT_MAX_REQUESTS_PER_SESSION = 32;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function rpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null }, headers);
}

/** Whether a request announces a body (which an early refusal would otherwise have node drain). */
const hasBody = (req: IncomingMessage): boolean =>
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;

/**
 * Answers a refusal. One that must close (a body left unread) says `Connection: close` and
 * destroys the socket once the answer is out, so the rest of the body is never read or drained.
 */
function refuse(req: IncomingMessage, res: ServerResponse, failure: HttpFailure): void {
  if (!failure.close) return rpcError(res, failure.status, failure.message, failure.headers);
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  res.once('finish', () => req.socket.destroy());
  res.shouldKeepAlive = false;
  rpcError(res, failure.status, failure.message, { ...failure.headers, Connection: 'close' });
}

/** Ids of the JSON-RPC requests (not notifications or responses) in a POST body. */
function requestIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) =>
    m && typeof m === 'object' && typeof (m as { method?: unknown }).method === 'string' && (typeof (m as { id?: unknown }).id === 'string' || typeof (m as { id?: unknown }).id === 'number')
      ? [(m as { id: RequestId }).id]
      : [],
  );
}

function listen(server: HttpServer, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(new Error(`cannot listen on ${host}:${port}: ${error.message}`));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Starts serving `host` over Streamable HTTP. Rejects (before listening) a non-loopback bind without a token. */
export async function serveHttp(host: ToolHost, options: HttpServeOptions): Promise<HttpServing> {
  const loopback = isLoopbackHost(options.host);
  if (!loopback && options.token === undefined) {
    throw new Error(`refusing to serve on ${options.host}, which is not a loopback address, without a bearer token (--token-file)`);
  }
  const authorized = options.token !== undefined ? bearerChecker(options.token) : undefined;
  const originAllowed = originChecker(options.allowedOrigins);
  const bodyBounds = {
    maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    timeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    budget: new BodyBudget(options.maxBufferedBodyBytes ?? DEFAULT_MAX_BUFFERED_BODY_BYTES),
  };
  const headersTimeoutMs = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const caps = new SessionCaps(options.maxSessions ?? DEFAULT_MAX_SESSIONS, options.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT);
  const maxRequestsPerSession = options.maxRequestsPerSession ?? DEFAULT_MAX_REQUESTS_PER_SESSION;
  const idleSessionMs = options.idleSessionMs ?? 30 * 60_000;
  const { logger } = options;
  const sessions = new Map<string, SessionEntry>();
  let allowedHosts: Set<string> | undefined;
  // 2026-07-28 requests carry no session: each runs in a session of its own that ends with it (modern/).
  const modern = modernEndpoint({
    host,
    logger,
    around: options.aroundDispatch,
    clients: options.clients,
    gateway: options.gateway,
    durable: options.durable,
    sessionFor: () => {
      const session = new ServeSession(`${options.conversationPrefix}-${randomUUID()}`);
      return { session, release: () => void endEphemeral(session) };
    },
  });
  const endEphemeral = async (session: ServeSession): Promise<void> => {
    session.end('the 2026-era request was answered');
    try {
      await options.onSessionEnd?.(session);
    } catch (error) {
      logger.warn({ err: error, conversationId: session.conversationId }, 'cleanup after a 2026-era request failed');
    }
  };

  const endSession = async (id: string, reason: string): Promise<void> => {
    const entry = sessions.get(id);
    if (!entry) return;
    sessions.delete(id);
    entry.release();
    // Everything the session held goes: calls, hub membership, its conversations' state.
    try {
      await endServeSession(host, entry.session, reason);
    } catch (error) {
      logger.warn({ err: error, conversationId: entry.session.conversationId }, 'releasing what a session held failed');
    }
    logger.info({ conversationId: entry.session.conversationId, reason }, 'MCP session ended');
    try {
      await options.onSessionEnd?.(entry.session);
    } catch (error) {
      logger.warn({ err: error, conversationId: entry.session.conversationId }, 'cleanup after a session failed');
    }
  };

  /**
   * A new session: its own conversation, SDK server and transport, holding the place `release`
   * gives back; registered once `initialize` succeeds.
   */
  const openSession = (release: () => void): SessionEntry => {
    const id = randomUUID();
    // The conversation id observers and logs see is its own random value, not the session id:
    // the `Mcp-Session-Id` is what a client presents to act as the session, so it is never shown.
    const session = new ServeSession(`${options.conversationPrefix}-${randomUUID()}`, true, options.maxConversationsPerSession);
    const server = createToolServer(host, session, logger, options.aroundDispatch, options.clients, options.gateway);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        sessions.set(id, entry);
        logger.info({ conversationId: session.conversationId }, 'MCP session started');
      },
    });
    const entry: SessionEntry = { session, server, transport, openRequests: 0, lastSeen: Date.now(), release };
    server.onclose = () => void endSession(id, 'the session closed');
    return entry;
  };

  const track = (entry: SessionEntry | undefined, res: ServerResponse, body?: unknown): void => {
    if (!entry) return;
    entry.openRequests += 1;
    entry.lastSeen = Date.now();
    const ids = body === undefined ? [] : requestIds(body);
    res.once('close', () => {
      entry.openRequests -= 1;
      entry.lastSeen = Date.now();
      if (!res.writableFinished && ids.length > 0) {
        const aborted = entry.session.cancel(ids, 'the client disconnected before the answer');
        if (aborted > 0) logger.info({ conversationId: entry.session.conversationId, aborted }, 'client disconnected mid-call');
      }
    });
  };

  /**
   * A POST without a session: only `initialize` may open one. The caps are asked before the
   * body is read; a session the transport refuses (its `initialize` answered with an error)
   * is closed at once, leaving no place, session or hub membership behind.
   */
  const initialize = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const caller = clientIdentity(req.headers.authorization, req.socket.remoteAddress, authorized !== undefined);
    const release = caps.admit(caller);
    let entry: SessionEntry | undefined;
    try {
      const body = await readBody(req, bodyBounds, parseJson);
      // A 2026-07-28 request carries no session: answered on its own (modern/), holding its
      // place in the caps only while it is read.
      const protocolHeader = req.headers['mcp-protocol-version'];
      if (isModernRequest(body, Array.isArray(protocolHeader) ? protocolHeader[0] : protocolHeader)) return await answerModernHttp(modern, req, res, body as never, logger, caller);
      if (Array.isArray(body) || !isInitializeRequest(body)) return rpcError(res, 400, 'no mcp-session-id: the first request of a session is initialize');
      entry = openSession(release);
      await entry.server.connect(entry.transport);
      await entry.transport.handleRequest(req, res, body);
    } finally {
      const opened = entry?.transport.sessionId;
      if (opened === undefined || sessions.get(opened) !== entry) {
        release();
        if (entry) {
          // It never ran a call, so only what it joined (the hub) is released.
          try {
            entry.session.end('initialize was refused');
          } catch (error) {
            logger.warn({ err: error }, 'releasing what a refused session held failed');
          }
          await entry.server.close();
        }
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    // Refusals before the body is read close the connection when there is one: never drained.
    const early = (status: number, message: string, headers: Record<string, string> = {}) => refuse(req, res, new HttpFailure(status, message, hasBody(req), headers));
    if (path !== MCP_PATH) return early(404, `not found: MCP is served at ${MCP_PATH}`);
    // Before the token: a page in the user's browser is refused whatever it holds.
    const origin = Array.isArray(req.headers.origin) ? req.headers.origin[0] : req.headers.origin;
    if (!originAllowed(origin)) {
      return early(403, `Origin ${JSON.stringify(origin).slice(0, 200)} is not allowed (loopback origins and serve's http.allowedOrigins are)`);
    }
    if (authorized && !authorized(req.headers.authorization)) {
      return early(401, 'missing or wrong bearer token', { 'WWW-Authenticate': 'Bearer realm="toolcell"' });
    }
    if (allowedHosts && !allowedHosts.has((req.headers.host ?? '').toLowerCase())) {
      return early(403, `Host ${JSON.stringify(req.headers.host ?? '')} is not this server's loopback address`);
    }
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    const known = sessionId !== undefined ? sessions.get(sessionId) : undefined;
    if (sessionId !== undefined && !known) return early(404, `unknown or ended session ${sessionId}; initialize a new one`);
    // Notifications and responses (a cancellation, an elicitation's answer) are never refused:
    // they are answered at once and are how a client frees its places.
    const full = (entry: SessionEntry) =>
      entry.openRequests >= maxRequestsPerSession
        ? new HttpFailure(429, `${maxRequestsPerSession} requests of this session are open already (serve's cap per session); wait for one to be answered`, false, { 'Retry-After': '1' })
        : undefined;
    if (req.method === 'POST') {
      if (!known) return initialize(req, res);
      const body = await readBody(req, bodyBounds, parseJson);
      const refused = requestIds(body).length > 0 ? full(known) : undefined;
      if (refused) throw refused;
      track(known, res, body);
      return known.transport.handleRequest(req, res, body);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!known) return rpcError(res, 400, 'mcp-session-id header required');
      const refused = req.method === 'GET' ? full(known) : undefined;
      if (refused) throw refused;
      track(known, res);
      return known.transport.handleRequest(req, res);
    }
    return early(405, `method ${req.method} not allowed`, { Allow: 'GET, POST, DELETE' });
  };

  // Node checks its own timeouts only this often; a quarter of the headers bound keeps the cut near it.
  const connectionsCheckingInterval = Math.max(250, Math.min(5_000, Math.floor(headersTimeoutMs / 4)));
  const http = createServer({ connectionsCheckingInterval }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpFailure) return refuse(req, res, error);
      logger.error({ err: error }, 'MCP HTTP request failed');
      rpcError(res, 500, 'internal error');
    });
  });
  // Stated, not node's defaults (60 s for headers, 300 s for a whole request): headers that
  // never finish are answered 408 and closed after `headersTimeoutMs`; node's whole-request
  // timeout is only the backstop behind the body timeout readBody enforces itself.
  http.headersTimeout = headersTimeoutMs;
  http.requestTimeout = headersTimeoutMs + bodyBounds.timeoutMs + 5_000;
  const address = await listen(http, options.host, options.port);
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  if (loopback) {
    allowedHosts = new Set([`127.0.0.1:${address.port}`, `localhost:${address.port}`, `[::1]:${address.port}`, `${hostPart}:${address.port}`].map((h) => h.toLowerCase()));
  }

  // A client that vanished without DELETE leaves a session nobody will end: reap it once idle.
  const reaper = setInterval(() => {
    const now = Date.now();
    for (const [id, entry] of sessions) {
      if (entry.openRequests === 0 && entry.session.inFlightCount === 0 && now - entry.lastSeen > idleSessionMs) {
        void entry.transport.close().finally(() => endSession(id, `idle for ${idleSessionMs} ms`));
      }
    }
  }, Math.max(50, Math.min(60_000, idleSessionMs / 2)));
  reaper.unref();

  return {
    url: `http://${hostPart}:${address.port}${MCP_PATH}`,
    sessionCount: () => sessions.size,
    close: async () => {
      clearInterval(reaper);
      await modern.close();
      const closing = [...sessions.keys()].map(async (id) => {
        const entry = sessions.get(id)!;
        await endSession(id, 'the server is shutting down');
        await entry.transport.close();
      });
      await Promise.all(closing);
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
