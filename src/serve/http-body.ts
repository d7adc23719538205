/**
 * Reading a request body for `serve --http`, bounded in bytes and time while it streams, never
 * after buffering: a declared `Content-Length` over the limit is refused before one byte is
 * read; a body that passes the limit is refused as it crosses it; a body not complete within its
 * time (stalled or trickled) is refused then; and all bodies being read at once share one byte
 * budget, so many peers each holding a body just under the limit cannot add up to more. A
 * refusal is an {@link HttpFailure} whose connection must be closed (`close`): the rest of the
 * body is never read or drained.
 */
import type { IncomingMessage } from 'node:http';

/** Largest request body (bytes) by default; one JSON-RPC message or batch fits easily. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Bytes of request bodies serve holds at once, across every connection, by default: 16 bodies
 * at the size limit. Past it a body is refused with 503 (the peer may retry), so stalled bodies
 * cost at most this much memory however many peers send them.
 */
export const DEFAULT_MAX_BUFFERED_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Time (ms) from a request's headers to the last byte of its body by default. A body still
 * incomplete then, stalled or trickled, is answered 408 and its connection closed. At the size
 * limit this asks ~140 KB/s of the peer.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** A request refused with an HTTP status; `close`: the connection is closed after the answer. */
export class HttpFailure extends Error {
  override name = 'HttpFailure';
  constructor(
    readonly status: number,
    message: string,
    readonly close = false,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The byte budget of every body being read at once (see {@link DEFAULT_MAX_BUFFERED_BODY_BYTES}). */
export class BodyBudget {
  private used = 0;

  constructor(readonly total: number) {}

  /** Bytes held now. */
  get held(): number {
    return this.used;
  }

  /** Takes `bytes` from the budget; false (nothing taken) when they do not fit. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.total) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

export interface BodyBounds {
  maxBytes: number;
  timeoutMs: number;
  budget: BodyBudget;
}

const busy = (budget: BodyBudget) =>
  new HttpFailure(503, `serve is holding ${budget.total} bytes of request bodies already; retry shortly`, true, { 'Retry-After': '1' });

/**
 * Reads `req`'s body within `bounds`, and calls `use` with it while its bytes are still counted
 * in the budget (parsing is part of holding it). Rejects with a closing {@link HttpFailure}:
 * 413 over the size, 408 past the time, 503 over the shared budget.
 */
export function readBody<T>(req: IncomingMessage, bounds: BodyBounds, use: (body: Buffer) => T): Promise<T> {
  const { maxBytes, timeoutMs, budget } = bounds;
  const declared = req.headers['content-length'] !== undefined ? Number(req.headers['content-length']) : undefined;
  if (declared !== undefined && declared > maxBytes) {
    return Promise.reject(new HttpFailure(413, `request body larger than ${maxBytes} bytes (Content-Length ${declared})`, true));
  }
  // A declared length is taken from the budget up front: a peer that announces 3.9 MiB and
  // stalls is refused now, not after it has filled the budget byte by byte.
  let held = declared !== undefined && Number.isFinite(declared) ? declared : 0;
  if (!budget.take(held)) return Promise.reject(busy(budget));
  return new Promise<T>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (failure: HttpFailure | undefined, body?: Buffer) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (failure) {
        // Stop reading: the rest is never consumed, and the caller closes the connection.
        req.pause();
        chunks.length = 0;
        budget.give(held);
        held = 0;
        return reject(failure);
      }
      try {
        resolve(use(body!));
      } catch (error) {
        reject(error);
      } finally {
        budget.give(held);
        held = 0;
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return done(new HttpFailure(413, `request body larger than ${maxBytes} bytes`, true));
      if (size > held) {
        if (!budget.take(size - held)) return done(busy(budget));
        held = size;
      }
      chunks.push(chunk);
    };
    const onEnd = () => done(undefined, Buffer.concat(chunks, size));
    const onError = (error: Error) => done(new HttpFailure(400, `request body could not be read: ${error.message}`, true));
    const onAborted = () => done(new HttpFailure(400, 'the client aborted the request body', true));
    const timer = setTimeout(() => done(new HttpFailure(408, `request body not received within ${timeoutMs} ms`, true)), timeoutMs);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('aborted', onAborted);
  });
}

/** Parses a body as JSON; 400 otherwise. */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpFailure(400, 'request body is not JSON');
  }
}
