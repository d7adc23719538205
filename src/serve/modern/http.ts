/**
 * A 2026-07-28 request over Streamable HTTP (http.ts hands a POST here when it carries no
 * session id and belongs to that era): the routing headers are checked against the body, the
 * request is answered by the {@link ModernEndpoint}, and the answer goes back as JSON — or, when
 * the client accepts `text/event-stream` and notifications (progress, log messages) came first,
 * as an SSE stream ending with the answer. A client that drops the connection before the answer
 * has its call cancelled. Errors carry the request's id and the status the spec gives them
 * (400 for malformed requests, 404 for methods the era does not have).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ModernEndpoint } from './endpoint.ts';
import { paramHeaderMismatch } from '../../mcpl/transports/param-headers.ts';
import { ErrorCodes, ModernError, checkHeaders } from './wire.ts';

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The HTTP status of a JSON-RPC answer: "method not found" is 404, everything else 200. */
function statusOf(message: JSONRPCMessage): number {
  const code = (message as { error?: { code?: unknown } }).error?.code;
  return code === ErrorCodes.methodNotFound ? 404 : 200;
}

/**
 * A `tools/call`'s `Mcp-Param-*` headers must carry what its body gives for each argument the
 * tool's schema marks with `x-mcp-header` (-32020, HTTP 400): a proxy routing on them then sees
 * what the tool gets.
 */
function checkParamHeaders(endpoint: ModernEndpoint, body: JSONRPCRequest, req: IncomingMessage): void {
  if (body.method !== 'tools/call') return;
  const params = (body.params ?? {}) as { name?: unknown; arguments?: unknown };
  if (typeof params.name !== 'string') return;
  const args = typeof params.arguments === 'object' && params.arguments !== null ? (params.arguments as Record<string, unknown>) : undefined;
  const why = paramHeaderMismatch(endpoint.toolSchema(params.name), args, (name) => header(req, name));
  if (why !== undefined) throw new ModernError(ErrorCodes.headerMismatch, `Header mismatch: ${why}`, 400);
}

/** Answers `body` (a request of the era) on `res`; `caller` is who sent it (its tasks are its own: tasks.ts). */
export async function answerModernHttp(endpoint: ModernEndpoint, req: IncomingMessage, res: ServerResponse, body: JSONRPCRequest, logger: Logger, caller: string): Promise<void> {
  const aborted = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  const sse = (header(req, 'accept') ?? '').includes('text/event-stream');
  let streaming = false;
  const write = (message: JSONRPCMessage) => {
    if (!streaming) {
      streaming = true;
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    }
    res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  };
  let answer: JSONRPCMessage;
  let status: number;
  try {
    checkHeaders(body, (name) => header(req, name));
    checkParamHeaders(endpoint, body, req);
    answer = await endpoint.handle(body, (n) => (sse && !res.writableEnded ? write(n) : undefined), aborted.signal, caller);
    status = statusOf(answer);
  } catch (error) {
    if (!(error instanceof ModernError)) throw error;
    answer = { jsonrpc: '2.0', id: body.id, error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } };
    status = error.httpStatus;
  }
  if (res.writableEnded || aborted.signal.aborted) {
    logger.debug({ method: body.method }, 'a 2026-era client left before its answer');
    return;
  }
  if (streaming) {
    write(answer);
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
}
