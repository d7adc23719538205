/**
 * The cache hint of a server's `tools/list` (MCP 2026-07-28, SEP-2549: `ttlMs` on list results)
 * as the connection's listing cache honours it: the listing is re-fetched once the hint says it
 * may be stale, so a server whose list changes are never announced to toolcell (a 2026 server,
 * which sends `list_changed` only on a `subscriptions/listen` stream) is still followed.
 * Bounded both ways: never sooner than {@link MIN_LISTING_REFRESH_MS} after the last listing
 * (the SDK v2 answers `ttlMs: 0`, "may change any time", by default), never later than
 * {@link MAX_LISTING_REFRESH_MS}. A listing without a hint is not re-fetched on a timer.
 */

/** Shortest wait before a hinted re-list: one `tools/list` per server every 2 s at most. */
export const MIN_LISTING_REFRESH_MS = 2_000;
/** Longest wait honoured (a day): node's timers cannot wait much longer (~24.8 days). */
export const MAX_LISTING_REFRESH_MS = 86_400_000;

/** The smallest valid `ttlMs` of a listing's pages (a whole listing is as fresh as its stalest page); undefined when none gives one. */
export function listingTtl(pages: readonly { ttlMs?: unknown }[]): number | undefined {
  let ttl: number | undefined;
  for (const page of pages) {
    const hint = page.ttlMs;
    if (typeof hint === 'number' && Number.isFinite(hint) && hint >= 0) ttl = Math.min(ttl ?? hint, hint);
  }
  return ttl;
}

/** One timer per connection: when the listing may be stale, `refresh` runs (once per listing). */
export class ListingExpiry {
  private timer: NodeJS.Timeout | undefined;
  /** When the current listing's re-fetch is due (epoch ms); undefined without a hint. */
  freshUntil: number | undefined;

  /** A listing arrived with hint `ttlMs`: any earlier schedule is replaced. */
  schedule(ttlMs: number | undefined, refresh: () => void): void {
    this.clear();
    if (ttlMs === undefined) return;
    const wait = Math.min(MAX_LISTING_REFRESH_MS, Math.max(MIN_LISTING_REFRESH_MS, ttlMs));
    this.freshUntil = Date.now() + wait;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      refresh();
    }, wait);
    // A hint never keeps the process alive.
    this.timer.unref();
  }

  /** The connection closed: nothing is re-fetched. */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.freshUntil = undefined;
  }
}
