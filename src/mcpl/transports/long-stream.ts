/**
 * The HTTP side of a long-lived request (MCP 2026-07-28 `subscriptions/listen`: a POST whose
 * SSE answer stays open and carries notifications). The SDK's transport treats a POST's stream
 * like any call's: a refusal (an HTTP error) or a stream cut before its answer would count as
 * the server lost (see http.ts `isFatal`), and a stream that simply ends is not reported at all.
 * A proxy cutting an idle stream must cost the listen alone, never the connection, and its end
 * must be heard so the listen is opened again. So, for such a request only:
 * - its POST gets an abort controller of its own, so the stream can be ended alone
 *   ({@link LongStreams.end});
 * - a refusal (but 401/403, which the SDK's authorization needs) reaches the SDK as a JSON-RPC
 *   error answering the request (HTTP 200), the server's own JSON-RPC error when it sent one;
 * - its SSE body is watched: when it ends or breaks, `onEnd` is told, and the SDK sees a
 *   clean end (no error it would take as the server gone).
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** The JSON-RPC id of a POST body's request when it is a `subscriptions/listen`. */
export function longLivedId(body: unknown): string | undefined {
  if (typeof body !== 'string' || !body.includes('"subscriptions/listen"')) return undefined;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    return message.method === 'subscriptions/listen' && typeof message.id === 'string' ? message.id : undefined;
  } catch {
    return undefined;
  }
}

/** Most bytes of a refused listen's body read to find its JSON-RPC error (the rest is dropped). */
const MAX_REFUSAL_BYTES = 64 * 1024;

/** The long-lived requests of one transport whose streams are open. */
export class LongStreams {
  private readonly open = new Map<string, AbortController>();

  constructor(private readonly onEnd: (id: string, reason: string) => void) {}

  /** Ends the stream of request `id`; false when none is open. */
  end(id: string): boolean {
    const controller = this.open.get(id);
    if (!controller) return false;
    this.open.delete(id);
    controller.abort(new Error('the subscription is no longer wanted'));
    return true;
  }

  /** How many are open (tests). */
  get size(): number {
    return this.open.size;
  }

  /** Fetches the long-lived request `id` with `base`, as the file header says. */
  async fetch(id: string, base: FetchLike, url: string | URL, init: RequestInit | undefined): Promise<Response> {
    const controller = new AbortController();
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    this.open.set(id, controller);
    let response: Response;
    try {
      response = await base(url, { ...init, signal });
    } catch (error) {
      this.open.delete(id);
      throw error;
    }
    if (!response.ok) {
      this.open.delete(id);
      if (response.status === 401 || response.status === 403) return response;
      return refusal(id, response);
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'text/event-stream' || !response.body) {
      this.open.delete(id);
      return response;
    }
    const reader = response.body.getReader();
    let ended = false;
    const finish = (reason: string) => {
      if (ended) return;
      ended = true;
      this.open.delete(id);
      this.onEnd(id, reason);
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            stream.close();
            finish('the stream ended');
          } else stream.enqueue(value);
        } catch (error) {
          stream.close();
          finish(`the stream broke: ${(error as Error).message}`);
        }
      },
      cancel(reason) {
        finish('the stream was cancelled');
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
}

/** A refused listen as the JSON-RPC error answering it. */
async function refusal(id: string, response: Response): Promise<Response> {
  let text = '';
  try {
    text = await boundedText(response, MAX_REFUSAL_BYTES);
  } catch (error) {
    text = `(its body could not be read: ${(error as Error).message})`;
  }
  let error: { code: number; message: string } = { code: response.status === 404 ? -32601 : -32603, message: `HTTP ${response.status}: ${text.slice(0, 500)}` };
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof parsed.error?.code === 'number') error = { code: parsed.error.code, message: String(parsed.error.message ?? '') };
  } catch {
    // Not JSON: the status and the text say it.
  }
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, error }), { status: 200, headers: { 'content-type': 'application/json' } });
}

/** The first `limit` bytes of `response`'s body as text; the rest is never read. */
async function boundedText(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  while (bytes < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.length;
  }
  await reader.cancel().catch(() => undefined);
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit));
}
