/**
 * Bookkeeping of one transport's `tools/call` requests that the SDK's client does not do for
 * us, applied to inbound messages ahead of the SDK, in arrival order:
 * - progress. The SDK hands notifications to their handlers a microtask later but settles
 *   responses at once, so a tool's last report, written just before its result, was lost.
 *   Our own progress tokens are relayed here, so every report reaches the caller before the
 *   result; reports for calls that already ended are dropped (expected, not an error).
 * - cancelled requests. The SDK forgets a request once its signal aborts, so a server's
 *   answer (a server may finish work it could not stop) would only be an "unknown message
 *   ID" error; it is consumed here and reported as late instead.
 * One tracker per transport epoch: request ids are the SDK client's, which is per epoch too.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ProgressUpdate } from '../host/types.ts';

/** How many cancelled request ids are remembered for late answers. */
const CANCELLED_REMEMBERED = 1024;
/** Our progress tokens, so reports for calls that already ended are recognised. */
const PROGRESS_TOKEN_PREFIX = 'toolcell-progress-';

type LateListener = (kind: 'result' | 'error') => void;
const noLate: LateListener = () => undefined;

export class CallTracker {
  /** Id of the last `tools/call` written; the SDK writes synchronously inside `request()`. */
  private lastToolsCallId: string | number | undefined;
  private readonly cancelled = new Map<string | number, LateListener>();
  private readonly progress = new Map<string, (p: ProgressUpdate) => void>();
  private counter = 0;

  /** Told of every outbound message (from the transport's send wrapper). */
  noteSent(message: JSONRPCMessage): void {
    if ('method' in message && 'id' in message && message.method === 'tools/call') this.lastToolsCallId = message.id;
  }

  /** Call right before the SDK writes a `tools/call`. */
  expectCall(): void {
    this.lastToolsCallId = undefined;
  }

  /** Registers a progress listener; returns the token to send as `_meta.progressToken`. */
  progressToken(onProgress: (p: ProgressUpdate) => void): string {
    const token = `${PROGRESS_TOKEN_PREFIX}${++this.counter}`;
    this.progress.set(token, onProgress);
    return token;
  }

  /**
   * Right after the SDK wrote the request: forgets its progress listener once it settles, and
   * remembers it as cancelled should `signal` abort first, so a late answer goes to `onLate`.
   */
  track(settled: Promise<unknown>, token: string | undefined, signal: AbortSignal | undefined, onLate: LateListener = noLate): void {
    const requestId = this.lastToolsCallId;
    const remember = () => {
      if (requestId === undefined) return;
      if (this.cancelled.size >= CANCELLED_REMEMBERED) this.cancelled.delete(this.cancelled.keys().next().value!);
      this.cancelled.set(requestId, onLate);
    };
    signal?.addEventListener('abort', remember, { once: true });
    const done = () => {
      if (token) this.progress.delete(token);
      signal?.removeEventListener('abort', remember);
    };
    void settled.then(done, done);
  }

  /** An inbound message, before the SDK sees it. True when it was consumed here. */
  consume(message: JSONRPCMessage): boolean {
    if ('method' in message) {
      if (message.method !== 'notifications/progress') return false;
      const params = message.params as ({ progressToken?: unknown; progress?: unknown } & Omit<ProgressUpdate, 'progress'>) | undefined;
      const token = params?.progressToken;
      if (typeof token !== 'string' || !token.startsWith(PROGRESS_TOKEN_PREFIX)) return false;
      if (typeof params!.progress === 'number') this.progress.get(token)?.(params as ProgressUpdate);
      return true;
    }
    if (this.cancelled.size === 0 || !('id' in message) || message.id === undefined) return false;
    const onLate = this.cancelled.get(message.id);
    if (!onLate) return false;
    this.cancelled.delete(message.id);
    onLate('error' in message ? 'error' : 'result');
    return true;
  }
}
