/**
 * How many MCP sessions `serve --http` keeps open: at most `total`, and at most `perClient` for
 * one client (its bearer token, or its address when serve runs without one; see
 * {@link clientIdentity}). A place is taken before a session is built — before its body is
 * even read — and given back when the session ends or its `initialize` is refused, so a
 * refused session costs nothing that outlives its request.
 */
import { HttpFailure } from './http-body.ts';

/**
 * Sessions open at once by default. Each holds an SDK server and transport (~35 KiB idle) plus
 * whatever its conversations keep (a JavaScript VM or Python interpreter while in use), until
 * it ends: DELETE, its transport closing, or the idle reaper.
 */
export const DEFAULT_MAX_SESSIONS = 128;

/** Sessions one client (token, or address without one) may hold at once by default. */
export const DEFAULT_MAX_SESSIONS_PER_CLIENT = 32;

export class SessionCaps {
  private open = 0;
  private readonly byClient = new Map<string, number>();

  constructor(
    readonly total: number,
    readonly perClient: number,
  ) {}

  /** Sessions holding a place now (open, or being opened). */
  get held(): number {
    return this.open;
  }

  /**
   * Takes a place for `client`, or throws a closing {@link HttpFailure}: 503 with every place
   * taken, 429 with the client's own. Returns the place's release (idempotent).
   */
  admit(client: string): () => void {
    if (this.open >= this.total) {
      throw new HttpFailure(503, `${this.total} sessions already open (serve's cap); end one (DELETE) or retry later`, true, { 'Retry-After': '5' });
    }
    const mine = this.byClient.get(client) ?? 0;
    if (mine >= this.perClient) {
      throw new HttpFailure(429, `${this.perClient} sessions already open for this client (serve's cap per client); end one (DELETE) first`, true, { 'Retry-After': '5' });
    }
    this.open += 1;
    this.byClient.set(client, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open -= 1;
      const left = (this.byClient.get(client) ?? 1) - 1;
      if (left > 0) this.byClient.set(client, left);
      else this.byClient.delete(client);
    };
  }
}
