/**
 * One 2026-era request run through the same SDK server code a 2025 session gets: a fresh SDK
 * `Server` (built by the caller, e.g. `createToolServer`) on an in-process loopback transport,
 * given an `initialize` made of the request's `_meta` (its client capabilities and info), then
 * the request itself. What the server sends back is sorted here:
 * - the answer to the request ends the exchange;
 * - a request of the server to its client (`elicitation/create`, `sampling/createMessage`,
 *   `roots/list`: an approval, or a provider's request forwarded by the gateway) becomes an
 *   input request: the exchange pauses with it open, and the client's answer, when it re-sends
 *   the request, is delivered as that request's response;
 * - a notification (progress, a log message) goes to whoever waits on the exchange now.
 * So tools, `code_execution`, approvals, resources, prompts and the gateway behave exactly as
 * for a 2025 client, and a provider's elicitation during a 2026 client's call is an input
 * request without per-feature translation.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { INPUT_KEY_META } from '../../mcpl/transports/era.ts';
import type { RequestMeta } from './wire.ts';

/** The handshake-era version the loopback session is opened with (the SDK's newest). */
const LOOPBACK_VERSION = '2025-11-25';
const INIT_ID = '__toolcell_modern_initialize__';

/** Ids of serve's own requests into an exchange's session ({@link Exchange.ask}). */
let ownIds = 0;

/** The SDK servers answering a 2026-era exchange now: a gateway passes a 2026 provider's input keys only to them. */
const exchangeServers = new WeakSet<Server>();

/**
 * Whether `server` answers a 2026-era exchange: a request it sends may carry the key it should
 * be asked under (`_meta` {@link INPUT_KEY_META}), which the exchange takes out.
 */
export function answersExchange(server: Server): boolean {
  return exchangeServers.has(server);
}

/** A request of the server to the client, waiting for the client's answer. */
export interface InputRequest {
  id: RequestId;
  method: string;
  params: Record<string, unknown> | undefined;
  /** The key a 2026 provider gave this request, to ask the client under the same one. */
  key?: string | undefined;
}

/** Where an exchange is now: answered, or waiting for the client's input. */
export type Outcome =
  | { kind: 'final'; message: JSONRPCMessage & ({ result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } }) }
  | { kind: 'input'; requests: ReadonlyMap<string, InputRequest> };

/** The loopback transport: the SDK server's side of an in-process pipe. */
class Loopback implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;

  constructor(private readonly out: (message: JSONRPCMessage) => void) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the 2026-era request is over');
    this.out(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  deliver(message: JSONRPCMessage): void {
    if (!this.closed) this.onmessage?.(message);
  }
}

export class Exchange {
  private readonly transport: Loopback;
  private final: Extract<Outcome, { kind: 'final' }>['message'] | undefined;
  /** Server requests not handed to the client yet. */
  private readonly asked: InputRequest[] = [];
  /** Server requests handed to the client, by the key the client answers under. */
  private readonly open = new Map<string, InputRequest>();
  private wake: (() => void) | undefined;
  private sink: ((n: JSONRPCNotification) => void) | undefined;
  private initialized: (() => void) | undefined;
  private keys = 0;
  private closed = false;
  /** serve's own requests into the session ({@link ask}), by id, waiting for their answers. */
  private readonly own = new Map<RequestId, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }>();

  private constructor(
    private readonly server: Server,
    readonly request: JSONRPCRequest,
  ) {
    this.transport = new Loopback((message) => this.fromServer(message));
  }

  /**
   * Opens the loopback session for `request` (its `_meta` as the handshake) and sends the
   * request — unless `send` is false (`subscriptions/listen`: the session only listens, and
   * {@link next} then waits until the exchange is closed).
   */
  static async start(server: Server, meta: RequestMeta, request: JSONRPCRequest, send = true): Promise<Exchange> {
    const exchange = new Exchange(server, request);
    exchangeServers.add(server);
    await server.connect(exchange.transport);
    const ready = new Promise<void>((resolve) => (exchange.initialized = resolve));
    exchange.transport.deliver({
      jsonrpc: '2.0',
      id: INIT_ID,
      method: 'initialize',
      params: { protocolVersion: LOOPBACK_VERSION, capabilities: meta.capabilities, clientInfo: meta.clientInfo },
    });
    await ready;
    exchange.transport.deliver({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (send) exchange.transport.deliver(request);
    return exchange;
  }

  /** The input requests handed out and not answered yet. */
  get pending(): ReadonlyMap<string, InputRequest> {
    return this.open;
  }

  /**
   * Waits until the request is answered or the server asks the client for something; `sink`
   * receives the notifications meanwhile. Requests the server sends in the same turn are
   * handed out together.
   */
  async next(sink: (n: JSONRPCNotification) => void): Promise<Outcome> {
    this.sink = sink;
    try {
      for (;;) {
        if (this.final) return { kind: 'final', message: this.final };
        if (this.asked.length > 0) {
          // Let requests the server sends together (parallel elicitations) arrive before answering.
          await new Promise((resolve) => setImmediate(resolve));
          // A 2026 provider's own key where it gave one (and it is free), else one of ours.
          for (const asked of this.asked.splice(0)) this.open.set(asked.key !== undefined && !this.open.has(asked.key) ? asked.key : `input-${++this.keys}`, asked);
          return { kind: 'input', requests: new Map(this.open) };
        }
        if (this.closed) throw new Error('the 2026-era request was closed before it was answered');
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.sink = undefined;
    }
  }

  /** Delivers the client's answer to the input request under `key`. Returns false for a key not open. */
  answer(key: string, result: unknown): boolean {
    const asked = this.open.get(key);
    if (!asked) return false;
    this.open.delete(key);
    const valid = typeof result === 'object' && result !== null && !Array.isArray(result);
    this.transport.deliver(
      valid
        ? { jsonrpc: '2.0', id: asked.id, result: result as Record<string, unknown> }
        : { jsonrpc: '2.0', id: asked.id, error: { code: -32602, message: 'the client answered with something that is not a result object' } },
    );
    return true;
  }

  /**
   * Sends a request of serve's own into the session (as if its client had sent it) and resolves
   * with its result: `subscriptions/listen` subscribes its resources this way, through the same
   * handlers (and upstream sessions) a 2025 client's `resources/subscribe` goes through. An
   * error answer rejects with its message; closing the exchange rejects what is still waiting.
   */
  ask(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new Error('the 2026-era request is over'));
    const id = `__toolcell_own_${++ownIds}__`;
    const answered = new Promise<Record<string, unknown>>((resolve, reject) => this.own.set(id, { resolve, reject }));
    this.transport.deliver({ jsonrpc: '2.0', id, method, params });
    return answered;
  }

  /** Ends the exchange: its call is cancelled and every open input request fails (an approval waiting on one is declined). */
  async close(reason: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [key, asked] of this.open) {
      this.open.delete(key);
      this.transport.deliver({ jsonrpc: '2.0', id: asked.id, error: { code: -32000, message: reason } });
    }
    if (!this.final) this.transport.deliver({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: this.request.id, reason } });
    for (const [id, waiting] of this.own) {
      this.own.delete(id);
      waiting.reject(new Error(reason));
    }
    await this.server.close();
    this.wake?.();
  }

  private fromServer(message: JSONRPCMessage): void {
    const m = message as Record<string, unknown>;
    if ('id' in m && ('result' in m || 'error' in m)) {
      const own = this.own.get(m.id as RequestId);
      if (own) {
        this.own.delete(m.id as RequestId);
        const error = m.error as { message?: unknown } | undefined;
        if (error) own.reject(new Error(String(error.message)));
        else own.resolve(m.result as Record<string, unknown>);
        return;
      }
      if (m.id === INIT_ID) this.initialized?.();
      else if (m.id === this.request.id) this.final = message as typeof this.final;
    } else if (typeof m.method === 'string' && 'id' in m) {
      this.asked.push({ id: m.id as RequestId, method: m.method, ...withoutKey(m.params as Record<string, unknown> | undefined) });
    } else if (typeof m.method === 'string') {
      this.sink?.(message as JSONRPCNotification);
      return;
    }
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** A server request's params without the provider's input key, and the key. */
function withoutKey(params: Record<string, unknown> | undefined): { params: Record<string, unknown> | undefined; key?: string } {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const key = meta?.[INPUT_KEY_META];
  if (!params || !meta || typeof key !== 'string') return { params };
  const { [INPUT_KEY_META]: _key, ...rest } = meta;
  const { _meta, ...others } = params;
  return { params: Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others, key };
}
