/**
 * The fault run's only source of randomness: a small seeded generator (mulberry32), so that a
 * run is reproducible from the seed it prints. Timing on a loaded machine still varies; the
 * seed fixes every choice the run makes, not the scheduler.
 */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Picks by weight: `[[weight, value], …]`. */
  weighted<T>(entries: readonly (readonly [number, T])[]): T {
    const total = entries.reduce((sum, [w]) => sum + w, 0);
    let r = this.next() * total;
    for (const [w, value] of entries) {
      r -= w;
      if (r < 0) return value;
    }
    return entries[entries.length - 1]![1];
  }

  /** A child generator, so that one part's choices do not shift another's. */
  fork(): Rng {
    return new Rng(Math.floor(this.next() * 2 ** 32));
  }
}

/** The seed from FAULT_SEED, or a fresh one. */
export function seedFromEnv(): number {
  const raw = process.env.FAULT_SEED;
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`FAULT_SEED must be a non-negative integer, got ${raw}`);
    return n >>> 0;
  }
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}
