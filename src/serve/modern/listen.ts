/**
 * `subscriptions/listen` (2026-07-28) on serve: one long-lived request whose stream carries the
 * change notifications its client asked for, tagged with the subscription's id (the request's
 * JSON-RPC id), until the client cancels it or serve stops.
 *
 * The stream runs in a session of its own (an {@link Exchange} that sends no request), which
 * joins the gateway hub like a 2025 session: list changes reach it from the hub, coalesced per
 * session. Its `resourceSubscriptions` are subscribed through that session's own
 * `resources/subscribe` handler — so through its own upstream session with a per-client
 * provider, or recorded as this session's on a shared connection — and a resource update
 * reaches the stream only for a URI it subscribed: never one meant for another client.
 *
 * The acknowledgement says what is honoured, narrowed to what serve can deliver now: a list
 * change only when serve declares that list's `listChanged`, resource URIs only when a provider
 * behind serve supports subscriptions and took the URI (a URI no provider lists is left out).
 */
import type { JSONRPCNotification, JSONRPCRequest, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Exchange } from './exchange.ts';
import { ErrorCodes, META_SUBSCRIPTION_ID, ModernError } from './wire.ts';

/** Most `resourceSubscriptions` one stream may name: each is a `resources/subscribe` to a provider. */
export const MAX_LISTEN_URIS = 64;
/** Longest URI a stream may subscribe to (bytes of JSON it keeps and sends upstream). */
export const MAX_LISTEN_URI_CHARS = 2_048;

/** The list changes a stream can ask for: filter field → the notification announcing it, and the capability it needs. */
const LIST_CHANGES = [
  { field: 'toolsListChanged', method: 'notifications/tools/list_changed', feature: 'tools' },
  { field: 'promptsListChanged', method: 'notifications/prompts/list_changed', feature: 'prompts' },
  { field: 'resourcesListChanged', method: 'notifications/resources/list_changed', feature: 'resources' },
] as const;

/** What a client asked for, checked. */
export interface ListenFilter {
  lists: ReadonlySet<string>;
  uris: readonly string[];
}

/** Reads `params.notifications`; malformed input is a typed -32602 error, nothing subscribed. */
export function readFilter(request: JSONRPCRequest): ListenFilter {
  const raw = (request.params as { notifications?: unknown } | undefined)?.notifications ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ModernError(ErrorCodes.invalidParams, 'Invalid params: notifications must be an object (the filter of what to receive)', 400);
  }
  const filter = raw as Record<string, unknown>;
  const lists = new Set(LIST_CHANGES.filter((l) => filter[l.field] === true).map((l) => l.field));
  const uris = filter.resourceSubscriptions ?? [];
  if (!Array.isArray(uris) || uris.some((u) => typeof u !== 'string' || u.length === 0)) {
    throw new ModernError(ErrorCodes.invalidParams, 'Invalid params: notifications.resourceSubscriptions must be an array of resource URIs', 400);
  }
  if (uris.length > MAX_LISTEN_URIS) {
    throw new ModernError(ErrorCodes.invalidParams, `Invalid params: a subscription may name at most ${MAX_LISTEN_URIS} resources (got ${uris.length}); open another for the rest`, 400);
  }
  const long = (uris as string[]).find((u) => u.length > MAX_LISTEN_URI_CHARS);
  if (long !== undefined) throw new ModernError(ErrorCodes.invalidParams, `Invalid params: a resource URI of ${long.length} characters (at most ${MAX_LISTEN_URI_CHARS})`, 400);
  return { lists, uris: [...new Set(uris as string[])] };
}

/**
 * Subscribes what `filter` asks for in the stream's session and runs the stream until it is
 * closed: the acknowledgement first, then each change asked for. Resolves when it ends.
 */
export async function runListenStream(
  stream: Exchange,
  subscriptionId: JSONRPCRequest['id'],
  filter: ListenFilter,
  capabilities: ServerCapabilities,
  notify: (n: JSONRPCNotification) => void,
  logger: Logger,
  /** More of the acknowledgement, honoured elsewhere (the tasks extension's `taskIds`). */
  acknowledged: Record<string, unknown> = {},
): Promise<void> {
  const lists = LIST_CHANGES.filter((l) => filter.lists.has(l.field) && (capabilities[l.feature] as { listChanged?: boolean } | undefined)?.listChanged === true);
  const uris = new Set<string>();
  if (capabilities.resources?.subscribe) {
    // One at a time: each waits for its provider (bounded by that connection's request timeout).
    for (const uri of filter.uris) {
      try {
        await stream.ask('resources/subscribe', { uri });
        uris.add(uri);
      } catch (error) {
        logger.debug({ uri, err: error }, 'a subscriptions/listen resource was not subscribed: left out of the acknowledgement');
      }
    }
  }
  const tag = { [META_SUBSCRIPTION_ID]: subscriptionId };
  const honoured: Record<string, unknown> = { ...Object.fromEntries(lists.map((l) => [l.field, true])), ...acknowledged };
  if (uris.size > 0) honoured.resourceSubscriptions = [...uris];
  notify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: honoured, _meta: tag } });
  const wanted = new Set<string>(lists.map((l) => l.method));
  await stream
    .next((n) => {
      if (wanted.has(n.method)) return notify({ jsonrpc: '2.0', method: n.method, params: { _meta: tag } });
      if (n.method !== 'notifications/resources/updated') return;
      const { _meta, ...params } = (n.params ?? {}) as Record<string, unknown>;
      if (typeof params.uri === 'string' && uris.has(params.uri)) notify({ jsonrpc: '2.0', method: n.method, params: { ...params, _meta: { ...(_meta as Record<string, unknown> | undefined), ...tag } } });
    })
    .catch((error: Error) => logger.debug({ err: error }, 'a subscriptions/listen stream ended'));
}
