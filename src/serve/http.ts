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
 * How calls end: a client's `notifications/cancelled` aborts that call; a POST whose connection
 * drops before its answer aborts the calls it carried (nothing could ever deliver their answer:
 * there is no event store to resume from); a session's end (DELETE, transport close, idle
 * reaping, shutdown) aborts all of its calls.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Logger } from 'pino';
import type { ToolHost } from '../host/tool-host.ts';
import { bearerChecker, isLoopbackHost } from './auth.ts';
import { ServeSession } from './session.ts';
import type { ServeClients } from './approval-clients.ts';
import { createToolServer, type AroundDispatch } from './tool-server.ts';
import type { GatewayHub } from './gateway/hub.ts';
import { modernEndpoint } from './modern/serve-endpoint.ts';
import { answerModernHttp } from './modern/http.ts';
import { isModernRequest } from './modern/wire.ts';

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
  /** Told once per session that ended, after its calls were aborted. */
  onSessionEnd?: (session: ServeSession) => void | Promise<void>;
  /** Largest request body accepted (default 4 MiB); larger ones get 413. */
  maxBodyBytes?: number;
  /** A session with no open HTTP request for this long is closed (default 30 minutes). */
  idleSessionMs?: number;
  /** Wraps each call's dispatch (telemetry: the client's trace context as its parent). */
  aroundDispatch?: AroundDispatch;
  /** Set when approvals are configured: each session's client is asked for its own calls. */
  clients?: ServeClients;
  /** Passes the providers' resources, prompts, completion and logging through (gateway/). */
  gateway?: GatewayHub;
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
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function rpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code: -32000, message }, id: null }, headers);
}

async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new HttpFailure(413, `request body larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpFailure(400, 'request body is not JSON');
  }
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
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
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
    entry.session.end(reason);
    logger.info({ conversationId: entry.session.conversationId, reason }, 'MCP session ended');
    try {
      await options.onSessionEnd?.(entry.session);
    } catch (error) {
      logger.warn({ err: error, conversationId: entry.session.conversationId }, 'cleanup after a session failed');
    }
  };

  /** A new session: its own conversation, SDK server and transport; registered once `initialize` succeeds. */
  const openSession = (): SessionEntry => {
    const id = randomUUID();
    // The conversation id observers and logs see is its own random value, not the session id:
    // the `Mcp-Session-Id` is what a client presents to act as the session, so it is never shown.
    const session = new ServeSession(`${options.conversationPrefix}-${randomUUID()}`);
    const server = createToolServer(host, session, logger, options.aroundDispatch, options.clients, options.gateway);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        sessions.set(id, entry);
        logger.info({ conversationId: session.conversationId }, 'MCP session started');
      },
    });
    const entry: SessionEntry = { session, server, transport, openRequests: 0, lastSeen: Date.now() };
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

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== MCP_PATH) return rpcError(res, 404, `not found: MCP is served at ${MCP_PATH}`);
    if (authorized && !authorized(req.headers.authorization)) {
      return rpcError(res, 401, 'missing or wrong bearer token', { 'WWW-Authenticate': 'Bearer realm="toolcell"' });
    }
    if (allowedHosts && !allowedHosts.has((req.headers.host ?? '').toLowerCase())) {
      return rpcError(res, 403, `Host ${JSON.stringify(req.headers.host ?? '')} is not this server's loopback address`);
    }
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    const known = sessionId !== undefined ? sessions.get(sessionId) : undefined;
    if (sessionId !== undefined && !known) return rpcError(res, 404, `unknown or ended session ${sessionId}; initialize a new one`);
    if (req.method === 'POST') {
      const body = await readJsonBody(req, maxBodyBytes);
      const protocolHeader = req.headers['mcp-protocol-version'];
      if (!known && isModernRequest(body, Array.isArray(protocolHeader) ? protocolHeader[0] : protocolHeader)) return answerModernHttp(modern, req, res, body as never, logger);
      if (!known) {
        if (Array.isArray(body) || !isInitializeRequest(body)) return rpcError(res, 400, 'no mcp-session-id: the first request of a session is initialize');
        const entry = openSession();
        await entry.server.connect(entry.transport);
        return entry.transport.handleRequest(req, res, body);
      }
      track(known, res, body);
      return known.transport.handleRequest(req, res, body);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!known) return rpcError(res, 400, 'mcp-session-id header required');
      track(known, res);
      return known.transport.handleRequest(req, res);
    }
    return rpcError(res, 405, `method ${req.method} not allowed`, { Allow: 'GET, POST, DELETE' });
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpFailure) return rpcError(res, error.status, error.message);
      logger.error({ err: error }, 'MCP HTTP request failed');
      rpcError(res, 500, 'internal error');
    });
  });
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
