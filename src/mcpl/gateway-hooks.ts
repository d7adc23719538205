/**
 * What a gateway needs of a provider connection beyond tools: to send it any MCP request with
 * a typed result (`resources/read`, `prompts/get`, `completion/complete`, `logging/setLevel`...)
 * and to hear the notifications the host itself does not consume (`notifications/message`,
 * `notifications/resources/updated`, the `list_changed` family). Kept apart from
 * connection.ts so the connection keeps one hook for each: `sendRequest` and the
 * `notification` event.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { z } from 'zod';

/** A notification a provider sent, as it came (method and params untouched). */
export interface ProviderNotification {
  method: string;
  params?: Record<string, unknown> | undefined;
}

/** How one request to a provider is run. */
export interface ProviderRequestOptions {
  /** Aborting it cancels the request at the provider (`notifications/cancelled`). */
  signal?: AbortSignal;
  /** Default: the server's `requestTimeoutMs` (30 s). */
  timeoutMs?: number;
}

/** Sends `method` with `params` on `client` and parses the result with `schema`; rejects with the provider's error as is (an `McpError` keeps its code). */
export function sendProviderRequest<S extends z.ZodType<object>>(
  client: Client,
  method: string,
  params: Record<string, unknown> | undefined,
  schema: S,
  options: ProviderRequestOptions & { timeoutMs: number },
): Promise<z.infer<S>> {
  return client.request({ method, ...(params !== undefined ? { params } : {}) }, schema as never, {
    timeout: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
  }) as Promise<z.infer<S>>;
}
