/**
 * The message size limit for Streamable HTTP, as a `fetch` wrapper: the same rule as stdio's
 * line limit. A POST carrying one of our requests answers it either with a JSON body or with
 * an SSE stream of events; a body (or one event) over the limit is replaced, before the SDK
 * reads it, by a JSON-RPC error answering that request and naming the limit and the size.
 * The request fails at once and the session goes on. Bytes are held back only up to the
 * limit, per body or per event, so an oversized answer never sits in memory whole.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { RESPONSE_TOO_LARGE } from './types.ts';

/** The id of the single request in a POST body we wrote, if it is one. */
function requestIdOf(body: RequestInit['body']): string | number | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    if (typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number')) return message.id;
  } catch {
    // Not ours to judge: the SDK wrote it.
  }
  return undefined;
}

function tooLarge(id: string | number, bytes: number, limit: number, more: boolean): string {
  const size = more ? `more than ${bytes}` : `${bytes}`;
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: { code: RESPONSE_TOO_LARGE, message: `the response was dropped: a message of ${size} bytes exceeds this transport's limit of ${limit} bytes` },
  });
}

const LF = 0x0a;

/**
 * Holds back one unit (the whole JSON body, or one SSE event up to its blank line) and
 * passes it on once complete; replaces it with the error when it outgrows the limit.
 */
function limitStream(limit: number, id: string | number, sse: boolean): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let lastByte = -1;
  let replaced = false;
  const encoder = new TextEncoder();
  const replace = (controller: TransformStreamDefaultController<Uint8Array>, bytes: number, more: boolean): void => {
    replaced = true;
    held = [];
    const error = tooLarge(id, bytes, limit, more);
    controller.enqueue(encoder.encode(sse ? `event: message\ndata: ${error}\n\n` : error));
    controller.terminate();
  };
  return new TransformStream({
    transform(chunk, controller) {
      if (replaced) return;
      let start = 0;
      if (sse) {
        // An event ends at an empty line: two line feeds in a row (a CR before each is ignored).
        for (let i = 0; i < chunk.length; i++) {
          const byte = chunk[i]!;
          if (byte === 0x0d) continue;
          if (byte === LF && lastByte === LF) {
            if (heldBytes + (i + 1 - start) > limit) return replace(controller, heldBytes + (i + 1 - start), false);
            held.push(chunk.subarray(start, i + 1));
            for (const part of held) controller.enqueue(part);
            held = [];
            heldBytes = 0;
            start = i + 1;
          }
          lastByte = byte;
        }
      }
      const rest = chunk.subarray(start);
      held.push(rest);
      heldBytes += rest.length;
      if (heldBytes > limit) replace(controller, heldBytes, true);
    },
    flush(controller) {
      for (const part of held) controller.enqueue(part);
    },
  });
}

/** Wraps `base` so that answers to our requests over `limit` bytes become errors. */
export function limitedFetch(limit: number, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (init?.method !== 'POST' || !response.ok || !response.body) return response;
    const id = requestIdOf(init.body);
    if (id === undefined) return response;
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json' && type !== 'text/event-stream') return response;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(response.body.pipeThrough(limitStream(limit, id, type === 'text/event-stream')), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}
