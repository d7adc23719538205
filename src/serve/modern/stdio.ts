/**
 * 2026-07-28 requests on serve's stdio: the transport's incoming messages pass through here
 * first; a request of that era is answered by the {@link ModernEndpoint} (its notifications and
 * answer written to stdout), everything else — the handshake era, and responses to the SDK
 * server's own requests — goes on to the SDK session unchanged. The client's
 * `notifications/cancelled` naming one of these requests cancels its call.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ModernEndpoint } from './endpoint.ts';
import { ModernError, isModernRequest } from './wire.ts';

/** Routes the era's requests arriving on `transport` (already connected to the SDK server) to `endpoint`. */
export function interceptModern(transport: Transport, endpoint: ModernEndpoint, logger: Logger): void {
  const inner = transport.onmessage;
  const running = new Map<RequestId, AbortController>();
  const send = (message: JSONRPCMessage) =>
    transport.send(message).catch((error: Error) => logger.debug({ err: error }, 'a 2026-era message could not be written to stdout'));
  transport.onmessage = (message, extra) => {
    const m = message as { method?: unknown; params?: { requestId?: RequestId } };
    if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined && running.has(m.params.requestId)) {
      running.get(m.params.requestId)!.abort();
      return;
    }
    if (!isModernRequest(message)) return inner?.(message, extra);
    const request = message as Extract<JSONRPCMessage, { method: string; id: RequestId }>;
    const aborted = new AbortController();
    running.set(request.id, aborted);
    endpoint
      .handle(request, (n) => void send(n), aborted.signal)
      .catch((error: unknown) => {
        if (error instanceof ModernError) return { jsonrpc: '2.0' as const, id: request.id, error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) } };
        logger.error({ err: error, method: request.method }, 'a 2026-era request failed');
        return { jsonrpc: '2.0' as const, id: request.id, error: { code: -32603, message: 'internal error' } };
      })
      .then((answer) => {
        running.delete(request.id);
        if (!aborted.signal.aborted) void send(answer as JSONRPCMessage);
      });
  };
}
