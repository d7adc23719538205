/**
 * 2026-era requests waiting for the client's input, by the `requestState` serve handed out with
 * their `input_required` result. The state is a random, single-use token that names the paused
 * exchange and nothing else (no secret, no data of the call): a retry presenting it must re-send
 * the very request it was issued for — same method, same params apart from `_meta`,
 * `inputResponses` and `requestState` — so an answer (an approval above all) only ever applies to
 * the exact call it was asked for. A retry that does not match fails that exchange closed.
 *
 * Bounded: at most {@link MAX_SUSPENDED} exchanges wait at once, each at most
 * {@link SUSPENDED_TTL_MS}; one that expires is closed (its call cancelled, an approval waiting
 * on it declined).
 */
import { randomBytes } from 'node:crypto';
import type { Exchange } from './exchange.ts';

/** Most exchanges waiting for input at once, over all clients (each holds a running call). */
export const MAX_SUSPENDED = 256;
/** How long serve keeps a call waiting for the client to re-send it with its answers (the approvals' default answer timeout). */
export const SUSPENDED_TTL_MS = 10 * 60_000;

interface Entry {
  exchange: Exchange;
  binding: string;
  timer: NodeJS.Timeout;
  release: () => void;
}

/** The params a retry must repeat: everything but `_meta`, `inputResponses` and `requestState`, as canonical JSON. */
export function bindingOf(method: string, params: unknown): string {
  const { _meta, inputResponses, requestState, ...rest } = (params ?? {}) as Record<string, unknown>;
  return JSON.stringify([method, canonical(rest)]);
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value as object).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

export class SuspendedExchanges {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly ttlMs = SUSPENDED_TTL_MS, private readonly max = MAX_SUSPENDED) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * Parks `exchange` until its retry; returns the `requestState` to hand out, or undefined when
   * serve already holds {@link MAX_SUSPENDED} (the caller then fails the call). `release` runs
   * once the exchange leaves (taken, expired or closed).
   */
  park(exchange: Exchange, binding: string, release: () => void): string | undefined {
    if (this.entries.size >= this.max) return undefined;
    const token = randomBytes(24).toString('base64url');
    const timer = setTimeout(() => {
      if (this.entries.get(token)?.exchange !== exchange) return;
      this.entries.delete(token);
      void exchange.close(`the client did not answer within ${this.ttlMs} ms`).finally(release);
    }, this.ttlMs);
    timer.unref();
    this.entries.set(token, { exchange, binding, timer, release });
    return token;
  }

  /**
   * Takes the exchange `token` names, for a retry whose params bind to `binding`. Unknown or
   * used token: undefined. A token presented with other params: the exchange is closed (what
   * was asked is not answered for another call) and an error is thrown.
   */
  take(token: string, binding: string): { exchange: Exchange; release: () => void } | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    this.entries.delete(token);
    clearTimeout(entry.timer);
    if (entry.binding !== binding) {
      void entry.exchange.close('the retry did not repeat the request its input was asked for').finally(entry.release);
      throw new Error('requestState was issued for a different request; the call it belonged to is cancelled');
    }
    return { exchange: entry.exchange, release: entry.release };
  }

  /** Closes every waiting exchange (serve is stopping). */
  async closeAll(reason: string): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(entries.map(async (e) => {
      clearTimeout(e.timer);
      await e.exchange.close(reason);
      e.release();
    }));
  }
}
