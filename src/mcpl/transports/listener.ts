/**
 * The client side of `subscriptions/listen` (MCP 2026-07-28) on a connection in that era: one
 * long-lived request whose stream carries the change notifications the connection asked for —
 * over HTTP a POST answered by an SSE stream, over stdio a request that stays open. It owns:
 * - what is asked for: the list changes the server declares (`listChanged` of tools, prompts,
 *   resources) and `resources/updated` for the URIs subscribed through this connection (the
 *   era layer turns the SDK client's `resources/subscribe`/`unsubscribe`, which the 2026 era no
 *   longer has, into this filter);
 * - one stream at a time: a new filter opens a new stream, and the old one is cancelled only
 *   once the new one is acknowledged (no gap), notifications being taken from the newest
 *   acknowledged stream alone (no duplicates);
 * - the notifications heard, tagged with the stream's subscription id, handed on untagged to
 *   the SDK client, so the handlers a 2025 server's notifications reach run unchanged;
 * - re-listening after a stream ends (dropped, or closed by the server), with a doubling
 *   back-off ({@link LISTEN_RETRY_BASE_MS} to {@link LISTEN_RETRY_MAX_MS}), bounded: after
 *   {@link MAX_LISTEN_FAILURES} failures in a row it stops and says so (the listing's cache
 *   hint still applies). After a gap the owner is told ({@link ListenerOptions.resumed}): what
 *   changed meanwhile was not heard;
 * - ending everything on {@link Listener.stop}: the stream is cancelled and no timer is left.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The `_meta` key carrying a stream's subscription id (the JSON-RPC id of its `subscriptions/listen`). */
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
/** First wait before listening again after a stream ended; it doubles with each failure in a row. */
export const LISTEN_RETRY_BASE_MS = 500;
/** Longest wait between two listens. */
export const LISTEN_RETRY_MAX_MS = 30_000;
/**
 * Listens that fail in a row (refused, not acknowledged in time, or ended within
 * {@link LISTEN_STABLE_MS}) after which the connection stops listening: a server that cannot
 * hold a stream costs at most this many requests per connection, spread over ~1 minute (0.5 s doubling, capped at 30 s).
 */
export const MAX_LISTEN_FAILURES = 8;
/** A stream that stayed open this long was healthy: its end starts the count of failures over. */
export const LISTEN_STABLE_MS = 10_000;
/**
 * Most URIs one connection subscribes to: each subscription re-sends the whole list in a new
 * listen, so a gateway's clients subscribing without end would cost requests growing with it.
 * Past it a subscription is refused (-32602), nothing changed.
 */
export const MAX_SUBSCRIBED_URIS = 256;
/** Prefix of the JSON-RPC ids of this layer's `subscriptions/listen` requests. */
const ID_PREFIX = '__toolcell_listen_';

/** The list changes a stream can ask for (the filter's fields). */
export type ListChange = 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged';

/** What the listener needs from the connection's era layer and transport. */
export interface ListenerOptions {
  /** Sends a request (the era's `_meta` is the caller's to add). */
  send(message: JSONRPCMessage): Promise<void>;
  /** Ends the stream of request `id`: HTTP aborts its POST, stdio sends `notifications/cancelled`. */
  cancel(id: string): void;
  /** A notification heard on the current stream, without its subscription tag, for the SDK client. */
  deliver(message: JSONRPCMessage): void;
  /** A stream is open again after one ended: changes in between were not heard. */
  resumed(): void;
  /** Something an operator should hear of (a listen refused, given up). */
  diagnostic(code: string, message: string): void;
  /** How long the server may take to acknowledge a listen (the connection's request timeout). */
  ackTimeoutMs: number;
}

/** A subscription's outcome once its stream answered. */
interface Waiter {
  uri: string;
  resolve: () => void;
  reject: (error: ListenError) => void;
}

interface Attempt {
  id: string;
  uris: ReadonlySet<string>;
  lists: ReadonlySet<ListChange>;
  acked: boolean;
  /** The acknowledgement honoured nothing: the stream has nothing to carry. */
  empty: boolean;
  openedAt: number;
  ackTimer: NodeJS.Timeout | undefined;
  waiters: Waiter[];
}

/** A subscription the server did not take, or a listen that failed; `code` is the JSON-RPC error code. */
export class ListenError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ListenError';
  }
}

type Json = Record<string, unknown>;

/** Whether `id` is one of this layer's listen request ids. */
export function isListenId(id: unknown): boolean {
  return typeof id === 'string' && id.startsWith(ID_PREFIX);
}

export class Listener {
  private lists = new Set<ListChange>();
  /** The URIs subscribed through this connection. */
  private readonly uris = new Set<string>();
  /** The newest acknowledged stream: its notifications are the ones delivered. */
  private current: Attempt | undefined;
  /** A stream asked for and not yet acknowledged. */
  private pending: Attempt | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;
  /** Why listening stopped for good (the server has no `subscriptions/listen`, or it failed too often). */
  private refused: ListenError | undefined;
  /** A stream ended unexpectedly since the last acknowledgement. */
  private gap = false;
  private serial = 0;

  constructor(private readonly options: ListenerOptions) {}

  /** Starts listening for `lists` (the list changes the server declares). */
  start(lists: Iterable<ListChange>): void {
    this.lists = new Set(lists);
    this.open();
  }

  /**
   * Adds `uri` to the stream's `resourceSubscriptions`. Resolves once a stream acknowledged it,
   * rejects when the server left it out (it does not take subscriptions, or not that URI).
   */
  subscribe(uri: string): Promise<void> {
    if (this.stopped) return Promise.reject(new ListenError(-32603, 'the connection is closed'));
    if (this.refused) return Promise.reject(this.refused);
    if (this.current?.uris.has(uri) && !this.pending) return Promise.resolve();
    if (!this.uris.has(uri) && this.uris.size >= MAX_SUBSCRIBED_URIS) {
      return Promise.reject(new ListenError(-32602, `a connection subscribes to at most ${MAX_SUBSCRIBED_URIS} resources; unsubscribe from one first`));
    }
    this.uris.add(uri);
    return new Promise<void>((resolve, reject) => {
      if (!this.pending || !this.pending.uris.has(uri)) this.open();
      this.pending?.waiters.push({ uri, resolve, reject });
    });
  }

  /** Removes `uri` from the stream's subscriptions (a new stream without it replaces the current one). */
  unsubscribe(uri: string): void {
    if (!this.uris.delete(uri) || this.stopped || this.refused) return;
    this.open();
  }

  /** What the listener holds now (tests, diagnostics). */
  get status(): { listening: boolean; pending: boolean; retrying: boolean; subscriptionId: string | undefined; uris: string[] } {
    return { listening: this.current !== undefined, pending: this.pending !== undefined, retrying: this.retryTimer !== undefined, subscriptionId: this.current?.id, uris: [...this.uris] };
  }

  /**
   * An inbound message: true when it belonged to a listen stream (acknowledgement, its
   * notifications, the request's end) and was dealt with here, false when it is someone else's.
   */
  consume(message: JSONRPCMessage): boolean {
    const m = message as Json;
    if (typeof m.method === 'string') {
      const params = m.params as Json | undefined;
      const meta = params?._meta as Json | undefined;
      const sid = meta?.[META_SUBSCRIPTION_ID];
      if (!isListenId(sid)) return false;
      if (m.method === 'notifications/subscriptions/acknowledged') {
        const pending = this.pending;
        if (pending !== undefined && pending.id === sid) this.acknowledged(pending, (params?.notifications ?? {}) as Json);
        return true;
      }
      // A stream being replaced, or one already cancelled, is not heard: only the current one.
      if (this.current?.id !== sid) return true;
      const { [META_SUBSCRIPTION_ID]: _tag, ...rest } = meta!;
      const { _meta: _drop, ...fields } = params!;
      this.options.deliver({ ...m, params: { ...fields, ...(Object.keys(rest).length > 0 ? { _meta: rest } : {}) } } as JSONRPCMessage);
      return true;
    }
    if (!isListenId(m.id) || !('result' in m || 'error' in m)) return false;
    const error = m.error as { code?: unknown; message?: unknown } | undefined;
    this.ended(String(m.id), error ? new ListenError(typeof error.code === 'number' ? error.code : -32603, String(error.message ?? 'refused')) : undefined, 'the server ended the stream');
    return true;
  }

  /** The transport saw the stream of request `id` end (an HTTP response body that closed or broke). */
  streamEnded(id: string, reason: string): void {
    this.ended(id, undefined, reason);
  }

  /** The connection closed: the stream is cancelled, subscriptions waiting fail, and no timer is left. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    for (const attempt of [this.pending, this.current]) {
      if (!attempt) continue;
      this.drop(attempt);
      this.fail(attempt.waiters, new ListenError(-32603, 'the connection closed'));
    }
    this.pending = undefined;
    this.current = undefined;
  }

  /** Opens a stream for what is wanted now (replacing a pending one); none when nothing is. */
  private open(): void {
    if (this.stopped || this.refused) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const previous = this.pending;
    if (this.lists.size === 0 && this.uris.size === 0) {
      for (const attempt of [previous, this.current]) if (attempt) this.drop(attempt);
      this.pending = undefined;
      this.current = undefined;
      if (previous) this.fail(previous.waiters, new ListenError(-32603, 'the subscription was withdrawn'));
      return;
    }
    const id = `${ID_PREFIX}${++this.serial}__`;
    const attempt: Attempt = { id, uris: new Set(this.uris), lists: new Set(this.lists), acked: false, empty: false, openedAt: Date.now(), ackTimer: undefined, waiters: [] };
    if (previous) {
      // The new stream asks for everything the old one did and more: its subscribers wait on it.
      attempt.waiters = previous.waiters;
      previous.waiters = [];
      this.drop(previous);
    }
    this.pending = attempt;
    attempt.ackTimer = setTimeout(() => this.ended(id, new ListenError(-32001, `not acknowledged within ${this.options.ackTimeoutMs} ms`), 'timeout'), this.options.ackTimeoutMs);
    const notifications: Json = Object.fromEntries([...attempt.lists].map((l) => [l, true]));
    if (attempt.uris.size > 0) notifications.resourceSubscriptions = [...attempt.uris];
    this.options
      .send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications } } as JSONRPCMessage)
      .catch((error: Error) => this.ended(id, new ListenError(-32603, `the listen could not be sent: ${error.message}`), 'send failed'));
  }

  private acknowledged(attempt: Attempt, honoured: Json): void {
    clearTimeout(attempt.ackTimer);
    attempt.ackTimer = undefined;
    attempt.acked = true;
    const taken = new Set(Array.isArray(honoured.resourceSubscriptions) ? honoured.resourceSubscriptions.filter((u): u is string => typeof u === 'string') : []);
    const lists = (['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const).filter((l) => honoured[l] === true);
    attempt.empty = taken.size === 0 && lists.length === 0;
    const old = this.current;
    this.pending = undefined;
    this.current = attempt;
    if (old) this.drop(old);
    for (const waiter of attempt.waiters) {
      if (taken.has(waiter.uri)) waiter.resolve();
      else {
        // The server left it out: not wanted any more, so the next stream does not ask again.
        this.uris.delete(waiter.uri);
        waiter.reject(new ListenError(-32602, `the server did not take a subscription to ${waiter.uri}`));
      }
    }
    attempt.waiters = [];
    if (this.gap) {
      this.gap = false;
      this.options.resumed();
    }
  }

  /** The stream `id` ended: with `error` when the server refused or answered with one. */
  private ended(id: string, error: ListenError | undefined, reason: string): void {
    const attempt = this.pending?.id === id ? this.pending : this.current?.id === id ? this.current : undefined;
    if (!attempt || this.stopped) return;
    clearTimeout(attempt.ackTimer);
    if (attempt === this.pending) this.pending = undefined;
    else this.current = undefined;
    if (reason === 'timeout') this.options.cancel(id);
    const asked = [...this.uris].filter((u) => attempt.uris.has(u));
    // A subscription that failed is not wanted any more: the next stream does not ask for it.
    for (const waiter of attempt.waiters) this.uris.delete(waiter.uri);
    this.fail(attempt.waiters, error ?? new ListenError(-32603, `the stream ended before it was acknowledged (${reason})`));
    this.gap = attempt.acked || this.gap;
    if (error?.code === -32602 && attempt.uris.size > 0) {
      // The server would not read this filter's URIs (too many, say): the list changes must still be heard.
      const dropped = asked;
      for (const uri of dropped) this.uris.delete(uri);
      if (dropped.length > 0) this.options.diagnostic('listen-subscriptions-refused', `subscriptions/listen refused its resource subscriptions (${error.message}); dropped: ${dropped.slice(0, 5).join(', ')}${dropped.length > 5 ? ` and ${dropped.length - 5} more` : ''}`);
      if (!this.current && !this.pending) this.schedule(error, reason);
      else if (this.current && !this.pending && !sameWants(this.current, this.lists, this.uris)) this.schedule(error, reason);
      return;
    }
    if (error && (error.code === -32601 || error.code === -32602)) {
      // No such method here, or a filter of list changes alone it cannot read: asking again would get the same answer.
      this.refused = error;
      this.options.diagnostic('listen-refused', `subscriptions/listen refused (${error.code} ${error.message}): changes are heard only through the listing's cache hint`);
      if (this.current) this.drop(this.current);
      this.current = undefined;
      return;
    }
    // A pending stream replacing a current one failed: the current one still carries what it did.
    if (this.current || this.pending) {
      if (this.pending === undefined && !sameWants(this.current!, this.lists, this.uris)) this.schedule(error, reason);
      return;
    }
    // A server that honoured nothing closes the stream at once: nothing to listen for until the wants change.
    if (attempt.acked && attempt.empty) return;
    if (attempt.acked && Date.now() - attempt.openedAt >= LISTEN_STABLE_MS) this.failures = 0;
    this.schedule(error, reason);
  }

  private schedule(error: ListenError | undefined, reason: string): void {
    this.failures += 1;
    if (this.failures >= MAX_LISTEN_FAILURES) {
      this.refused = new ListenError(-32603, `subscriptions/listen failed ${MAX_LISTEN_FAILURES} times in a row`);
      this.options.diagnostic('listen-gave-up', `stopped listening after ${MAX_LISTEN_FAILURES} failures in a row (last: ${error?.message ?? reason}): changes are heard only through the listing's cache hint`);
      return;
    }
    const wait = Math.min(LISTEN_RETRY_MAX_MS, LISTEN_RETRY_BASE_MS * 2 ** (this.failures - 1));
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.open();
    }, wait);
  }

  /** Cancels a stream no longer wanted. */
  private drop(attempt: Attempt): void {
    clearTimeout(attempt.ackTimer);
    attempt.ackTimer = undefined;
    this.options.cancel(attempt.id);
  }

  private fail(waiters: Waiter[], error: ListenError): void {
    for (const waiter of waiters.splice(0)) waiter.reject(error);
  }
}

function sameWants(attempt: Attempt, lists: ReadonlySet<ListChange>, uris: ReadonlySet<string>): boolean {
  return attempt.lists.size === lists.size && [...lists].every((l) => attempt.lists.has(l)) && attempt.uris.size === uris.size && [...uris].every((u) => attempt.uris.has(u));
}
