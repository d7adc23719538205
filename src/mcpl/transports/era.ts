/**
 * The client side of the 2026-07-28 era, as a layer on a connection's transport, so the SDK v1
 * `Client` above it (and everything toolcell builds on it) stays as it is:
 * - the SDK's `initialize` is first tried as `server/discover` (with the client's capabilities
 *   and info in `_meta`); a server that lists 2026-07-28 gets the stateless era, and the SDK is
 *   handed an `initialize` answer made of the discover result. Any other answer — an error, a
 *   refused POST, no answer within the connection's request timeout — falls back to the real
 *   `initialize` (2025-11-25 and older, the handshake); a refusal for want of authorization
 *   fails the connect as an `initialize` would, and the discover is asked again once authorized;
 * - in the stateless era each request gets the era's `_meta` (protocol version, capabilities,
 *   client info), over HTTP the routing headers (see {@link modernHeaders}), and
 *   `notifications/initialized` is not sent;
 * - a result with `resultType: "input_required"` is turned into the server requests it carries,
 *   delivered to the SDK client as if the server had sent them — so the same `serverRequests`
 *   handlers answer them, attributed to the call by its progress token — and the request is
 *   re-sent with their answers and the server's `requestState`, at most
 *   {@link MAX_INPUT_ROUNDS} times;
 * - the server's change notifications arrive on a `subscriptions/listen` stream opened right
 *   after the discover (listener.ts), and the SDK client's `resources/subscribe`/`unsubscribe`
 *   (not in the era) change that stream's URIs; closing the transport ends the stream.
 * - a tool call the connection marks as a task is followed as the tasks extension
 *   (era-tasks.ts; the lines here that serve it say "tasks:").
 */
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { paramHeadersFor } from './param-headers.ts';
import { ListenError, Listener, type ListChange } from './listener.ts';
import { TaskFollower } from './era-tasks.ts';
import type { HostTransport } from './types.ts';

export const MODERN_VERSION = '2026-07-28';
/** How long the first `server/discover` may take before the connection falls back to the handshake, unless the connection gives its own request timeout. */
export const DISCOVER_TIMEOUT_MS = 30_000;
/** Most `input_required` rounds one request may go through (a server asking forever is an error). */
export const MAX_INPUT_ROUNDS = 16;
/**
 * The `_meta` key under which an input request handed to the SDK client carries the key the
 * server gave it in `inputRequests`, so that a gateway can ask its own client under the same
 * key. client-features/install.ts takes it out before any handler sees the request
 * ({@link ServerRequestContext.inputKey}).
 */
export const INPUT_KEY_META = 'dev.toolcell/inputKey';
/** The handshake-era version the SDK client is told it agreed (it knows no newer one). */
const SDK_VERSION = '2025-11-25';

type Json = Record<string, unknown>;

/**
 * The HTTP headers a 2026-era request body needs (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`, and for a `tools/call` the `Mcp-Param-*` headers its tool's schema marks, when
 * `toolSchema` knows the tool); undefined for anything else.
 */
export function modernHeaders(body: string, toolSchema?: (name: string) => Record<string, unknown> | undefined): Record<string, string> | undefined {
  let message: Json;
  try {
    message = JSON.parse(body) as Json;
  } catch {
    return undefined;
  }
  if (typeof message.method !== 'string') return { 'mcp-protocol-version': MODERN_VERSION };
  const params = (message.params ?? {}) as Json;
  const name = message.method === 'resources/read' ? params.uri : message.method === 'tools/call' || message.method === 'prompts/get' ? params.name : undefined;
  const paramHeaders = message.method === 'tools/call' && typeof name === 'string' ? paramHeadersFor(toolSchema?.(name), params.arguments as Json | undefined) : {};
  return { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': message.method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}), ...paramHeaders };
}

interface Tracked {
  /** The request as the SDK client sent it (its id is the one the answer must carry). */
  request: JSONRPCRequest;
  /** The id of the latest attempt on the wire: each retry is a new request with an id of its own. */
  wireId: RequestId;
  rounds: number;
  /** Synthetic server-request id → the key its answer goes under. */
  waiting: Map<RequestId, string>;
  answers: Json;
  requestState: string | undefined;
}

/** The era a connection settled on (`undefined` until `initialize`). */
export interface EraState {
  era: 'modern' | 'handshake' | undefined;
  /** The input schema of the server's tool `name`, for its `Mcp-Param-*` headers (set by the connection from its listing). */
  toolSchema?: ((name: string) => Record<string, unknown> | undefined) | undefined;
  /** The `subscriptions/listen` stream of a 2026 server (listener.ts), once the era is settled. */
  listener?: Listener | undefined;
  /** A listen stream is open again after one ended: the connection re-lists (set by the connection). */
  onresumed?: (() => void) | undefined;
  /** Something about listening an operator should hear of (set by the connection). */
  ondiagnostic?: ((code: string, message: string) => void) | undefined;
}

/**
 * Puts the era layer on `transport` (before the SDK client connects). Over HTTP, give the
 * transport {@link EraState.headers} for its requests' routing headers.
 */
export function speakBothEras(transport: HostTransport, discoverTimeoutMs = DISCOVER_TIMEOUT_MS): EraState & { headers: (body: string) => Record<string, string> | undefined } {
  const state: EraState & { headers: (body: string) => Record<string, string> | undefined } = {
    era: undefined,
    // The era's headers on its requests: the discover probe, then everything once the server took the era.
    headers: (body) => (state.era === 'modern' || (state.era === undefined && body.includes('"server/discover"')) ? modernHeaders(body, state.toolSchema) : undefined),
  };
  const send = transport.send.bind(transport);
  const start = transport.start.bind(transport);
  let meta: Json = {};
  let toClient: ((m: JSONRPCMessage) => void) | undefined;
  let discoverWaiter: ((m: Json | undefined) => void) | undefined;
  const discoverId = '__toolcell_era_discover__';
  const tracked = new Map<RequestId, Tracked>();
  const synthetic = new Map<RequestId, RequestId>();
  let serial = 0;

  const withMeta = (request: JSONRPCRequest, extra: Json = {}): JSONRPCRequest => {
    const params = (request.params ?? {}) as Json;
    // tasks: a task call (and the follower's own requests) declares the tasks extension.
    return tasks.declare({ ...request, params: { ...params, ...extra, _meta: { ...(params._meta as Json | undefined), ...meta } } }, request.id);
  };
  // tasks: calls of tools that must run as tasks, followed as the io.modelcontextprotocol/tasks extension (era-tasks.ts).
  const tasks = new TaskFollower({
    send: (m) => send(m),
    toClient: (m) => toClient?.(m),
    inbound: (m) => (transport.onmessage as ((m: JSONRPCMessage) => void) | undefined)?.(m),
    request: (id, method, params) => withMeta({ jsonrpc: '2.0', id, method, params }),
  });

  const inbound = (message: JSONRPCMessage): void => {
    const m = message as Json;
    if (m.id === discoverId && ('result' in m || 'error' in m)) {
      discoverWaiter?.(m);
      return;
    }
    if (state.listener?.consume(message)) return;
    if (state.era === 'modern' && tasks.inbound(m)) return; // tasks: an answer to the follower's own request
    const entry = state.era === 'modern' && m.id !== undefined && ('result' in m || 'error' in m) ? tracked.get(m.id as RequestId) : undefined;
    const result = m.result as Json | undefined;
    // tasks: a task answer is followed (tasks/get...) until it ends; the SDK client gets the end.
    if (entry && result && tasks.follow(entry.request, result)) return void tracked.delete(entry.wireId);
    if (entry && result?.resultType === 'input_required') {
      entry.rounds += 1;
      if (entry.rounds > MAX_INPUT_ROUNDS) {
        tracked.delete(entry.wireId);
        toClient?.({ jsonrpc: '2.0', id: entry.request.id, error: { code: -32603, message: `the server asked for input more than ${MAX_INPUT_ROUNDS} times` } });
        return;
      }
      entry.requestState = typeof result.requestState === 'string' ? result.requestState : undefined;
      entry.answers = {};
      const asked = Object.entries((result.inputRequests ?? {}) as Record<string, Json>);
      if (asked.length === 0) return void resend(entry);
      const token = ((entry.request.params as Json | undefined)?._meta as Json | undefined)?.progressToken;
      for (const [key, request] of asked) {
        const id = `__toolcell_era_input_${++serial}__`;
        entry.waiting.set(id, key);
        synthetic.set(id, entry.wireId);
        const params = { ...((request.params ?? {}) as Json) };
        // The call's progress token attributes the request to the call (docs/mcp-client.md); the key goes with it.
        params._meta = { ...(params._meta as Json | undefined), ...(token !== undefined ? { progressToken: token } : {}), [INPUT_KEY_META]: key };
        toClient?.({ jsonrpc: '2.0', id, method: String(request.method), params } as JSONRPCMessage);
      }
      return;
    }
    if (entry) {
      tracked.delete(entry.wireId);
      tasks.settled(entry.request.id); // tasks
      // The answer goes to the SDK client under the id it sent the request with.
      return void toClient?.({ ...m, id: entry.request.id } as JSONRPCMessage);
    }
    toClient?.(message);
  };

  const resend = (entry: Tracked): void => {
    tracked.delete(entry.wireId);
    entry.wireId = `__toolcell_era_retry_${++serial}__`;
    tracked.set(entry.wireId, entry);
    const retry = { ...withMeta(entry.request, { inputResponses: entry.answers, ...(entry.requestState !== undefined ? { requestState: entry.requestState } : {}) }), id: entry.wireId };
    send(retry).catch((error: Error) => toClient?.({ jsonrpc: '2.0', id: entry.request.id, error: { code: -32603, message: `re-sending with the answers failed: ${error.message}` } }));
  };

  transport.start = async () => {
    toClient = transport.onmessage as (m: JSONRPCMessage) => void;
    transport.onmessage = inbound as typeof transport.onmessage;
    // However the transport ends, the listen stream and its timers end with it, and (tasks:) every followed task's polling.
    const closed = transport.onclose;
    transport.onclose = () => {
      state.listener?.stop();
      tasks.close();
      closed?.();
    };
    transport.onstreamend = (id, reason) => state.listener?.streamEnded(id, reason);
    return start();
  };
  const close = transport.close.bind(transport);
  transport.close = (graceMs) => {
    state.listener?.stop();
    return close(graceMs);
  };
  const kill = transport.kill.bind(transport);
  transport.kill = () => {
    state.listener?.stop();
    kill();
  };

  /** The 2026 era has no `resources/subscribe`: a subscription is a URI of the listen stream (listener.ts). */
  const subscription = (request: JSONRPCRequest): void => {
    const uri = (request.params as Json | undefined)?.uri;
    const answer = (outcome: { result: Json } | { error: { code: number; message: string } }) => toClient?.({ jsonrpc: '2.0', id: request.id, ...outcome } as JSONRPCMessage);
    const listener = state.listener;
    if (typeof uri !== 'string' || uri.length === 0) return answer({ error: { code: -32602, message: 'Invalid params: uri must be a non-empty string' } });
    if (!listener) return answer({ error: { code: -32601, message: 'the server does not take resource subscriptions' } });
    if (request.method === 'resources/unsubscribe') {
      listener.unsubscribe(uri);
      return answer({ result: {} });
    }
    listener.subscribe(uri).then(
      () => answer({ result: {} }),
      (error: Error) => answer({ error: { code: error instanceof ListenError ? error.code : -32603, message: error.message } }),
    );
  };

  transport.send = async (message, options) => {
    const m = message as Json;
    if (state.era === undefined && m.method === 'initialize') return initialize(message as JSONRPCRequest, options);
    if (state.era !== 'modern') return send(message, options);
    if (m.method === 'notifications/initialized' || m.method === 'notifications/roots/list_changed') return;
    if (tasks.cancelled(m) || tasks.answer(m)) return; // tasks: a followed task given up, or an answer to its input request
    if (m.id !== undefined && (m.method === 'resources/subscribe' || m.method === 'resources/unsubscribe')) return subscription(message as JSONRPCRequest);
    if (m.id !== undefined && !('method' in m)) {
      // The SDK client's answer to an input request: collected, and once all are in, the request goes again.
      const owner = synthetic.get(m.id as RequestId);
      synthetic.delete(m.id as RequestId);
      const entry = owner !== undefined ? tracked.get(owner) : undefined;
      if (!entry) return;
      const key = entry.waiting.get(m.id as RequestId)!;
      entry.waiting.delete(m.id as RequestId);
      entry.answers[key] = 'result' in m ? m.result : { action: 'cancel' };
      if (entry.waiting.size === 0) resend(entry);
      return;
    }
    if (m.id !== undefined && typeof m.method === 'string') {
      const request = withMeta(tasks.take(message as JSONRPCRequest)); // tasks: the connection's marker out
      tracked.set(request.id, { request, wireId: request.id, rounds: 0, waiting: new Map(), answers: {}, requestState: undefined });
      return send(request, options);
    }
    return send(message, options);
  };

  const initialize = async (request: JSONRPCRequest, options?: Parameters<HostTransport['send']>[1]): Promise<void> => {
    const params = (request.params ?? {}) as Json;
    meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientCapabilities': params.capabilities ?? {},
      'io.modelcontextprotocol/clientInfo': params.clientInfo,
    };
    // One retry: a server may refuse the first request's version (-32022) naming 2026-07-28 among those it supports.
    let discover: Json | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      let timer: NodeJS.Timeout | undefined;
      const answered = new Promise<Json | undefined>((resolve) => {
        discoverWaiter = resolve;
        timer = setTimeout(() => resolve(undefined), discoverTimeoutMs);
      });
      let refusal = '';
      let unauthorized: UnauthorizedError | undefined;
      discover = await send({ jsonrpc: '2.0', id: discoverId, method: 'server/discover', params: { _meta: meta } }).then(
        () => answered,
        (error: Error): undefined => {
          if (error instanceof UnauthorizedError) unauthorized = error;
          refusal = String(error?.message);
          return undefined;
        },
      );
      clearTimeout(timer);
      discoverWaiter = undefined;
      // A server that wants authorization first says nothing about its era yet: the connect fails
      // `unauthorized` as an initialize would, and once authorized it is asked again (connection.ts).
      // Falling back here would send the handshake to a server that may let `initialize` through
      // unauthenticated and refuse it as a 2025 request (the suite's auth/scope-step-up does).
      if (unauthorized) throw unauthorized;
      const error = discover?.error as { code?: unknown; data?: { supported?: unknown } } | undefined;
      const offersModern = (error?.code === -32022 && Array.isArray(error.data?.supported) && error.data.supported.includes(MODERN_VERSION)) || (refusal.includes('-32022') && refusal.includes(MODERN_VERSION));
      if (!offersModern) break;
    }
    const result = discover?.result as Json | undefined;
    const versions = Array.isArray(result?.supportedVersions) ? (result.supportedVersions as unknown[]) : [];
    if (!result || !versions.includes(MODERN_VERSION)) {
      state.era = 'handshake';
      return send(request, options);
    }
    state.era = 'modern';
    listen((result.capabilities ?? {}) as Json);
    const serverInfo = ((result._meta as Json | undefined)?.['io.modelcontextprotocol/serverInfo'] ?? result.serverInfo ?? { name: 'unnamed-server', version: '0' }) as Json;
    toClient?.({
      jsonrpc: '2.0',
      id: request.id,
      result: { protocolVersion: SDK_VERSION, capabilities: result.capabilities ?? {}, serverInfo, ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}) },
    });
  };

  /**
   * Opens the listen stream for the list changes the server declares, before the SDK client
   * lists anything (a change after the first listing is then heard). A server that takes
   * resource subscriptions gets a listener even with no list to hear: subscriptions open it.
   */
  const listen = (capabilities: Json): void => {
    const lists: ListChange[] = [];
    const declares = (feature: string) => (capabilities[feature] as { listChanged?: unknown } | undefined)?.listChanged === true;
    if (declares('tools')) lists.push('toolsListChanged');
    if (declares('prompts')) lists.push('promptsListChanged');
    if (declares('resources')) lists.push('resourcesListChanged');
    const subscribable = (capabilities.resources as { subscribe?: unknown } | undefined)?.subscribe === true;
    if (lists.length === 0 && !subscribable) return;
    const listener = new Listener({
      send: (request) => send(withMeta(request as JSONRPCRequest)),
      cancel: (id) => {
        if (transport.endStream?.(id)) return;
        send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the subscription is no longer wanted' } }).catch((error: Error) =>
          state.ondiagnostic?.('listen-cancel-failed', `a listen stream could not be cancelled: ${error.message}`),
        );
      },
      deliver: (notification) => toClient?.(notification),
      resumed: () => state.onresumed?.(),
      diagnostic: (code, message) => state.ondiagnostic?.(code, message),
      ackTimeoutMs: discoverTimeoutMs,
    });
    state.listener = listener;
    listener.start(lists);
  };
  return state;
}
