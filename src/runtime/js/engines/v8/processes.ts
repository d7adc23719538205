/**
 * The V8 engine's sandbox processes for one runtime: a process never serves two conversations,
 * and all of them count against one cap.
 *
 * Runs without a conversation share warm pools per heap size, as before. Each conversation gets
 * a pool of its own that keeps its process between runs; an idle conversation's process is
 * closed after `idleMs`, or sooner when a new run needs room under the cap (least recently used
 * first). A run that finds no room waits in a bounded FIFO queue and is refused past it.
 */
import { CapacityError, waitInQueue, type ResolvedPoolOptions, type Waiting } from '../pool-options.ts';
import { SandboxPool } from './warm-pool.ts';
import type { SandboxProcessOptions } from '../../sandbox-process.ts';

export interface V8ProcessesOptions {
  /** Warm spare processes for runs of the runtime's own heap size (the runtime's `poolSize`). */
  spare: number;
  heapMb: number;
  /** How each process starts (entry, fallback context, OS layer, the operator's caps); its heap is its runs'. */
  process: Omit<SandboxProcessOptions, 'heapMb' | 'engine'>;
  /** The cap, the queue's bounds, and how long a conversation's process is kept without a run (`idleProcessMs`). */
  pool: Pick<ResolvedPoolOptions, 'maxProcesses' | 'maxQueued' | 'queueTimeoutMs' | 'idleProcessMs'>;
}

interface Held {
  pool: SandboxPool;
  active: number;
  lastUsed: number;
  /** Ended while a run used it: its process is closed once its last run is over. */
  ending: boolean;
}

interface Waiter extends Waiting<void> {
  /** The pool the run will take its process from: an idle process there needs no room. */
  pool(): SandboxPool | undefined;
  /** The run's conversation key, kept when making room for it. */
  key: string | undefined;
}

export class V8Processes {
  private readonly shared = new Map<number, SandboxPool>();
  private readonly conversations = new Map<string, Held>();
  private readonly queue: Waiter[] = [];
  private readonly sweeper: NodeJS.Timeout;
  /** Runs let in under the cap whose process is not counted yet (between `room` and `pool`). */
  private granted = 0;
  /** Runs without a conversation in progress: each holds a process of the shared pools. */
  private anonymousActive = 0;
  /** Counts of pools already closed, so stats cover the runtime's whole life. */
  private readonly retired = { started: 0, killed: 0 };

  constructor(private readonly options: V8ProcessesOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(20, Math.min(options.pool.idleProcessMs, 60_000) / 2));
    this.sweeper.unref();
  }

  /** Starts the runtime's spare processes. */
  warm(): void {
    this.sharedPool(this.options.heapMb).warm();
  }

  /**
   * The pool a run acquires its process from, once a process fits under the cap. `done` must be
   * called when the run is over. Rejects with a CapacityError past the queue's bounds.
   */
  async pool(heapMb: number, conversation: string | undefined, signal?: AbortSignal): Promise<{ pool: SandboxPool; done(): void }> {
    const key = conversation === undefined ? undefined : `${heapMb}\u0000${conversation}`;
    const existing = key === undefined ? this.sharedPool(heapMb) : this.conversations.get(key)?.pool;
    if (existing === undefined || existing.size.idle === 0) {
      await this.room(key, heapMb, signal);
      this.granted--; // counted from here on by the run itself (below)
    }
    if (key === undefined) {
      this.anonymousActive++;
      return {
        pool: this.sharedPool(heapMb),
        done: () => {
          this.anonymousActive--;
          this.serveQueue();
        },
      };
    }
    let held = this.conversations.get(key);
    if (held === undefined) {
      const pool = new SandboxPool(0, { ...this.options.process, heapMb }, () => this.serveQueue());
      held = { pool, active: 0, lastUsed: 0, ending: false };
      this.conversations.set(key, held);
    }
    held.active++;
    const h = held;
    return {
      pool: h.pool,
      done: () => {
        h.active--;
        h.lastUsed = performance.now();
        if (h.ending && h.active === 0 && this.conversations.get(key) === h) this.retire(key, h);
        this.serveQueue();
      },
    };
  }

  /** The conversation is over: its process is closed now, or once its runs in progress are over. */
  endConversation(conversation: string): void {
    const suffix = `\u0000${conversation}`;
    for (const [key, held] of [...this.conversations]) {
      if (!key.endsWith(suffix) || key.indexOf('\u0000') !== key.length - suffix.length) continue;
      if (held.active > 0) held.ending = true;
      else this.retire(key, held);
    }
    this.serveQueue();
  }

  /** Processes alive or starting, counting one for every run that will need one. */
  private live(): number {
    let shared = 0;
    for (const pool of this.shared.values()) shared += pool.size.live;
    let n = this.granted + Math.max(shared, this.anonymousActive);
    for (const held of this.conversations.values()) n += Math.max(held.pool.size.live, held.active);
    return n;
  }

  /** Resolves once a new process fits under the cap, closing idle conversations' processes if needed. */
  private room(key: string | undefined, heapMb: number, signal?: AbortSignal): Promise<void> {
    if (this.queue.length === 0 && this.fits(key)) {
      this.granted++;
      return Promise.resolve();
    }
    return waitInQueue<void, Waiter>(this.queue, this.options.pool, signal, {
      key,
      pool: () => (key === undefined ? this.shared.get(heapMb) : this.conversations.get(key)?.pool),
    });
  }

  /**
   * Whether one more process fits, after closing idle conversations' processes (never `keep`'s)
   * and then idle warm spares: a spare must never hold the place a run needs (with
   * `maxProcesses: 1` it used to hold the only one).
   */
  private fits(keep?: string): boolean {
    while (this.live() >= this.options.pool.maxProcesses) {
      if (!this.evictOne(keep) && ![...this.shared.values()].some((pool) => pool.dropIdle())) return false;
    }
    return true;
  }

  /** Closes the least recently used idle conversation's process. */
  private evictOne(keep?: string): boolean {
    let victim: [string, Held] | undefined;
    for (const entry of this.conversations) {
      if (entry[1].active > 0 || entry[0] === keep || entry[1].pool.size.live === 0) continue;
      if (victim === undefined || entry[1].lastUsed < victim[1].lastUsed) victim = entry;
    }
    if (victim === undefined) return false;
    this.retire(victim[0], victim[1]);
    return true;
  }

  private retire(key: string, held: Held): void {
    this.conversations.delete(key);
    this.retired.started += held.pool.counts.started;
    this.retired.killed += held.pool.counts.killed;
    void held.pool.close();
  }

  /**
   * Lets waiting runs in, first come first served: one whose pool has an idle process takes it
   * (no new process, so no room needed: at the cap, the shared pool's warm processes would
   * otherwise hold every place while runs wait for one of them), any other once a process fits.
   */
  private serveQueue(): void {
    const promised = new Map<SandboxPool, number>();
    while (this.queue.length > 0) {
      const waiter = this.queue[0]!;
      const pool = waiter.pool();
      const idle = pool === undefined ? 0 : pool.size.idle - (promised.get(pool) ?? 0);
      if (idle > 0) promised.set(pool!, (promised.get(pool!) ?? 0) + 1);
      else if (!this.fits(waiter.key)) return;
      this.granted++;
      waiter.resolve();
    }
  }

  private sharedPool(heapMb: number): SandboxPool {
    let pool = this.shared.get(heapMb);
    if (pool === undefined) {
      // Only the runtime's own heap size keeps spares; other sizes keep one process for reuse.
      const spare = heapMb === this.options.heapMb ? this.options.spare : 0;
      pool = new SandboxPool(spare, { ...this.options.process, heapMb }, () => this.serveQueue());
      this.shared.set(heapMb, pool);
    }
    return pool;
  }

  private sweep(): void {
    const now = performance.now();
    for (const [key, held] of this.conversations) {
      if (held.active === 0 && now - held.lastUsed >= this.options.pool.idleProcessMs) this.retire(key, held);
    }
    this.serveQueue();
  }

  /** Processes started and killed over the runtime's life; alive now; conversations holding one. */
  stats(): { started: number; killed: number; live: number; conversations: number } {
    let { started, killed } = this.retired;
    for (const pool of [...this.shared.values(), ...[...this.conversations.values()].map((h) => h.pool)]) {
      started += pool.counts.started;
      killed += pool.counts.killed;
    }
    return { started, killed, live: this.live(), conversations: this.conversations.size };
  }

  /** Refuses waiters and closes every pool. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const waiter of [...this.queue]) waiter.reject(new CapacityError('the runtime is closed'));
    const pools = [...this.shared.values(), ...[...this.conversations.values()].map((h) => h.pool)];
    await Promise.all(pools.map((pool) => pool.close()));
  }
}
