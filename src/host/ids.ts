/**
 * Host-unique `toolCallId`s (RFC-007 §3). A model's own id is reused only where the provider
 * guarantees it unique — a random `toolu_…` id of at least 64 bits — and only if it was not
 * reported recently; everything else (`call_0`, `t1`, short or sequential ids) is minted over.
 */
import { randomBytes } from 'node:crypto';

/** `toolu_` followed by at least 16 base-62-ish characters: comfortably over 64 random bits. */
const PROVIDER_UNIQUE = /^toolu_[A-Za-z0-9]{16,}$/;

export class CallIdMinter {
  private counter = 0;
  /** Per-process nonce so ids from two host instances (or runs) never collide in a log. */
  private readonly nonce = randomBytes(4).toString('hex');
  private readonly recent = new Set<string>();
  private readonly prefix = `tc_${this.nonce}_`;

  constructor(private readonly recentLimit = 50_000) {}

  /** Returns the id to report for a call with the given model id (if any). */
  next(modelCallId?: string): string {
    if (modelCallId !== undefined && PROVIDER_UNIQUE.test(modelCallId) && !this.recent.has(modelCallId)) {
      this.remember(modelCallId);
      return modelCallId;
    }
    return this.mint();
  }

  /** A fresh host id. Minted ids cannot collide with reused ones: they never start with `toolu_`. */
  mint(): string {
    this.counter += 1;
    return `${this.prefix}${this.counter.toString(36)}`;
  }

  /** Whether this minter handed out `id` (reused model ids: only while they are remembered). */
  issued(id: string): boolean {
    if (id.startsWith(this.prefix)) {
      const n = Number.parseInt(id.slice(this.prefix.length), 36);
      return n >= 1 && n <= this.counter && n.toString(36) === id.slice(this.prefix.length);
    }
    return this.recent.has(id);
  }

  private remember(id: string): void {
    this.recent.add(id);
    if (this.recent.size > this.recentLimit) {
      // Sets iterate in insertion order: the first entry is the oldest.
      const oldest = this.recent.values().next().value as string;
      this.recent.delete(oldest);
    }
  }
}
