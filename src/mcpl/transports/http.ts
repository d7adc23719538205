/**
 * A remote MCP/MCPL server over Streamable HTTP: the SDK's client transport, wrapped so a
 * connection treats it exactly like a spawned server. What the wrapper adds:
 * - failure rules: a server that goes away (refused connection, a response stream cut
 *   mid-call, an expired session) closes the transport, so its open calls end `failed` at
 *   once and the reconnect policy applies — instead of the SDK's silent stream retries
 *   leaving a call to its safety timeout;
 * - the message size limit (see http-limit.ts);
 * - batched lifecycle writes (each message still travels as its own POST);
 * - the wire log;
 * - authorization mid-session (token expired, scope step-up) that needs the person's browser:
 *   the request waits for the redirect and is sent again (see reauthorize.ts).
 */
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { GarbageLine, HostTransport, WireFrame } from './types.ts';
import { limitedFetch } from './http-limit.ts';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Reauthorization } from './reauthorize.ts';
import { LongStreams, longLivedId } from './long-stream.ts';

export interface HttpServerParams {
  url: string;
  /** Sent with every request (an `Authorization` header, for instance). */
  headers?: Record<string, string>;
  /** Largest answer accepted for one request, in bytes (default 16 MiB); a larger one fails that request. */
  maxMessageBytes?: number;
  /** OAuth: given to the SDK's transport, which authorizes on 401/403 (see ../auth.ts). */
  authProvider?: OAuthClientProvider;
}

/** Errors after which the server is considered gone for this session. */
function isFatal(error: Error): boolean {
  // The GET stream is optional (a stateless server answers 404 or 405): POSTs still work.
  if (error instanceof StreamableHTTPError && /Failed to open SSE stream/.test(error.message) && error.code !== 401 && error.code !== 403) return false;
  // A scope the authorization server would not grant refuses that one request; the session and its grant go on.
  if (error instanceof StreamableHTTPError && error.code === 403 && /after trying upscoping/.test(error.message)) return false;
  if (error instanceof StreamableHTTPError) return error.code === 404 || error.code === 401 || error.code === 403;
  const text = `${error.name}: ${error.message} ${String((error as { cause?: unknown }).cause ?? '')}`;
  return /SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts|fetch failed|ECONNREFUSED|ECONNRESET|terminated|other side closed/i.test(text);
}

/** The SDK's error for a refused `GET` (the optional standalone stream), as opposed to a refused POST. */
function isStandaloneStreamRefused(error: Error): boolean {
  return error instanceof StreamableHTTPError && (error.code === 404 || error.code === 405) && error.message.includes('Failed to open SSE stream');
}

export class HttpTransport implements HostTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  ongarbage?: (garbage: GarbageLine) => void;
  onwire?: (frame: WireFrame) => void;
  onstreamend?: (requestId: string, reason: string) => void;
  /** Open streams of long-lived requests (`subscriptions/listen`, long-stream.ts): their end is one request's, never the server's. */
  private readonly streams = new LongStreams((id, reason) => this.onstreamend?.(id, reason));
  private readonly inner: StreamableHTTPClientTransport;
  private closed = false;
  private started = false;
  /** The first fatal error, kept because the SDK reports the close that follows as "Connection closed". */
  failure: Error | undefined;
  /** Status of the MCP endpoint's last answer, so a failure inside the SDK's auth() reads as what it is. */
  private lastStatus = 0;
  /** Set for a provider that runs the authorization-code flow. */
  private readonly reauthorization: Reauthorization | undefined;
  /** A request was answered: from now on an authorization a request needs is completed inside `send` (before, connect does it). */
  private established = false;

  constructor(params: HttpServerParams) {
    this.reauthorization = Reauthorization.for(params.authProvider);
    const authProvider = this.reauthorization?.provider ?? params.authProvider;
    this.inner = new StreamableHTTPClientTransport(new URL(params.url), {
      ...(params.headers ? { requestInit: { headers: params.headers } } : {}),
      ...(authProvider ? { authProvider } : {}),
      fetch: this.noteStatus(new URL(params.url).href, limitedFetch(params.maxMessageBytes ?? 16 * 1024 * 1024)),
      // A cut stream is a lost server here (see isFatal); one quick retry of the standalone stream at most.
      reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 2, maxRetries: 1 },
    });
  }

  /** Extra headers for a request body (the 2026 era's routing headers, see era.ts); set by the connection. */
  requestHeaders: ((body: string) => Record<string, string> | undefined) | undefined;

  private noteStatus(endpoint: string, base: FetchLike): FetchLike {
    return async (url, init) => {
      const extra = typeof init?.body === 'string' ? this.requestHeaders?.(init.body) : undefined;
      if (extra) {
        const headers = new Headers(init!.headers);
        for (const [k, v] of Object.entries(extra)) headers.set(k, v);
        init = { ...init, headers };
      }
      const listen = longLivedId(init?.body);
      const response = listen !== undefined ? await this.streams.fetch(listen, base, url, init) : await base(url, init);
      if (new URL(String(url)).href !== endpoint) return response;
      this.lastStatus = response.status;
      return this.established && this.reauthorization ? this.reauthorization.noteAnswer(response) : response;
    };
  }

  get protocolVersion(): string | undefined {
    return this.inner.protocolVersion;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get isOpen(): boolean {
    return this.started && !this.closed;
  }

  get pid(): undefined {
    return undefined;
  }

  get exit(): undefined {
    return undefined;
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message) => {
      this.onwire?.({ direction: 'in', message });
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => {
      if (this.closed) return;
      if (isStandaloneStreamRefused(error)) {
        // A stateless server offers no GET stream (405, or 404 from many servers): requests
        // still get their answers on their own POSTs, so the connection goes on.
        this.onerror?.(new Error(`the server offers no standalone SSE stream (${error.message}); server-initiated messages arrive only during requests`));
        return;
      }
      if (isFatal(error)) {
        this.failure ??= error;
        this.onerror?.(error);
        this.lose();
        return;
      }
      // A message the SDK could not parse: skipped, like a garbage stdout line.
      if (error.name === 'ZodError' || error instanceof SyntaxError) this.ongarbage?.({ line: error.message.slice(0, 200), reason: 'not a JSON-RPC message' });
      else this.onerror?.(error);
    };
    this.inner.onclose = () => this.finish();
    await this.inner.start();
    this.started = true;
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  /** The server is gone: stop the SDK transport (no stream retries) and report the close. */
  private lose(): void {
    void this.inner.close().catch(() => undefined);
    this.finish();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.closed) throw new Error('transport closed');
    this.onwire?.({ direction: 'out', message });
    const redirects = this.reauthorization?.redirects ?? 0;
    try {
      await this.inner.send(message, options);
      this.established = true;
    } catch (error) {
      const reauthorization = this.reauthorization;
      if (error instanceof UnauthorizedError && this.established && reauthorization && reauthorization.redirects > redirects) {
        // The SDK started an authorization for this request (expired grant, wider scope): finish it, then send again.
        await this.inner.finishAuth(await reauthorization.waitForCode());
        return this.inner.send(message, options);
      }
      // The SDK's auth() failing after a 401/403 (no registration endpoint, a refused token...) is a refusal.
      if (!(error instanceof UnauthorizedError) && (this.lastStatus === 401 || this.lastStatus === 403)) {
        throw new UnauthorizedError(`authorization failed after HTTP ${this.lastStatus}: ${(error as Error).message}`);
      }
      throw error;
    }
  }

  /** Each message of the batch is its own POST, in order; resolves when all were accepted. */
  async writeRaw(data: string): Promise<void> {
    for (const line of data.split('\n')) {
      if (line) await this.send(JSON.parse(line) as JSONRPCMessage);
    }
  }

  /** Ends the session (HTTP DELETE, bounded by `graceMs`), then the transport. */
  async close(graceMs = 500): Promise<void> {
    if (!this.closed && this.inner.sessionId) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.inner.terminateSession().catch(() => undefined),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
    }
    await this.inner.close().catch(() => undefined);
    this.finish();
  }

  /** How many authorization redirects the SDK started on this transport (0 for a provider that runs none). */
  get authorizationRedirects(): number {
    return this.reauthorization?.redirects ?? 0;
  }

  /**
   * Exchanges the authorization code of a redirect for tokens (the SDK's `finishAuth`, with
   * the resource metadata and scope this transport's 401 named). Works after the transport closed.
   */
  finishAuth(authorizationCode: string): Promise<void> {
    return this.inner.finishAuth(authorizationCode);
  }

  endStream(requestId: string): boolean {
    return this.streams.end(requestId);
  }

  kill(): void {
    this.lose();
  }
}
