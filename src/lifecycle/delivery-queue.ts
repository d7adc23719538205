/**
 * One observer connection's outbound FIFO for `tools/lifecycle` notifications.
 *
 * Tool execution never waits on it: enqueueing is synchronous, draining runs on its own,
 * one batched write at a time, and waits for the pipe to drain before the next (stdio
 * back-pressure). A stuck observer therefore costs bounded memory, and the bound is in bytes:
 * `maxQueuedBytes` of waiting JSON (an opening carries up to the input bound, 16 KiB by
 * default, so a message count alone would allow ~160 MB, while small messages would fill a
 * count long before they cost any memory — a count of 10,000 dropped a quarter to half of the
 * calls of a burst that a lifted rate budget should have delivered). A message count applies
 * only when configured (`maxQueued`). When a bound is reached, whole new calls are dropped for
 * this observer — their opening is never queued, so no terminal follows — and counted. A
 * terminal of an opening that was queued is always queued (it may overshoot the byte bound by
 * a terminal's size per open call), so an observer never sees a lone `started` because of load.
 */

/**
 * Default size bound of one observer's queue, in characters of JSON: 16 MiB holds a burst of
 * ~38,000 small calls (two ~220-character messages each) while the observer catches up, and
 * ~1,000 calls with 15 KB inputs. What a stuck observer costs the host is this plus ~24 bytes
 * per waiting message (its string header and slot: about a tenth more for the smallest ones).
 */
export const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/**
 * Default spacing of writes to one observer, in ms. A write after a quiet spell goes out at
 * once; under a sustained stream of calls the messages of 5 ms share one write. Measured with
 * four SDK-based observer processes and 10,000 sequential inner calls on the 2-core machine:
 * each write wakes an observer process, and at 1 ms spacing the observers spent 90–97 µs of CPU
 * per message against 68–82 µs at 10 ms (the host's pipe writes fall by as much).
 */
export const DEFAULT_MIN_WRITE_INTERVAL_MS = 5;

export interface DeliveryStats {
  /** Messages handed to the transport. */
  sent: number;
  /** Calls whose opening was dropped because the queue was full. */
  droppedCalls: number;
  /** Messages waiting now. */
  queued: number;
  /** Highest number of messages ever waiting at once. */
  highWater: number;
  /** Size of the messages waiting now (characters of JSON, about a byte each). */
  queuedBytes: number;
  /** Highest {@link queuedBytes} ever. */
  highWaterBytes: number;
}

export interface DeliveryQueueOptions {
  /** Openings refused beyond this many waiting messages (default: no count bound; the size bound governs). */
  maxQueued?: number;
  /**
   * Openings refused once the waiting messages reach this size, in characters of JSON — about
   * a byte each, as lifecycle lines are mostly ASCII (default {@link DEFAULT_MAX_QUEUED_BYTES}, 16 MiB).
   */
  maxQueuedBytes?: number;
  /**
   * Calls per second this observer hears about; beyond it whole calls are dropped and counted
   * (RFC-007 §7.4 lets hosts drop at high rates). Bursts up to one second's worth pass.
   * `Infinity` disables the limit.
   */
  maxCallsPerSecond?: number;
  /** Largest single batched write, in characters. */
  maxBatchChars?: number;
  /**
   * Writes to one observer are at least this far apart (default {@link DEFAULT_MIN_WRITE_INTERVAL_MS});
   * what is queued in between goes out in one write. One write per message would cost a system
   * call per phase per observer — most of the host's time under load.
   */
  minWriteIntervalMs?: number;
}

export class DeliveryQueue {
  private items: string[] = [];
  private head = 0;
  private draining = false;
  private stopped = false;
  private readonly maxQueued: number;
  private readonly maxQueuedBytes: number;
  private bytes = 0;
  private readonly maxBatchChars: number;
  private readonly rate: number;
  private readonly minWriteIntervalMs: number;
  private lastWriteAt = -Infinity;
  private tokens: number;
  private refilledAt = performance.now();
  private idleWaiters: (() => void)[] = [];
  readonly stats: DeliveryStats = { sent: 0, droppedCalls: 0, queued: 0, highWater: 0, queuedBytes: 0, highWaterBytes: 0 };

  /**
   * @param write writes newline-terminated messages; resolves when the pipe has room again
   *   and rejects once the connection is gone.
   * @param onError told once when a write fails; the queue then stops and discards.
   */
  constructor(
    private readonly write: (data: string) => Promise<void>,
    private readonly onError: (error: Error) => void,
    options: DeliveryQueueOptions = {},
  ) {
    this.maxQueued = options.maxQueued ?? Infinity;
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.maxBatchChars = options.maxBatchChars ?? 64 * 1024;
    this.rate = options.maxCallsPerSecond ?? Infinity;
    this.minWriteIntervalMs = options.minWriteIntervalMs ?? DEFAULT_MIN_WRITE_INTERVAL_MS;
    this.tokens = this.rate;
  }

  /** Whether an opening would be accepted now (queue room and rate budget). */
  hasRoom(): boolean {
    if (this.stopped || this.items.length - this.head >= this.maxQueued || this.bytes >= this.maxQueuedBytes) return false;
    if (this.rate === Infinity) return true;
    if (this.tokens < 1) {
      const now = performance.now();
      this.tokens = Math.min(this.rate, this.tokens + ((now - this.refilledAt) / 1000) * this.rate);
      this.refilledAt = now;
    }
    return this.tokens >= 1;
  }

  /** Counts a call dropped for this observer without building its opening. */
  countDroppedCall(): void {
    this.stats.droppedCalls += 1;
  }

  /** Queues a call's opening if there is room; false means the whole call is dropped for this observer. */
  offerOpening(message: string): boolean {
    if (!this.hasRoom() || this.bytes + message.length > this.maxQueuedBytes) {
      this.stats.droppedCalls += 1;
      return false;
    }
    this.tokens -= 1;
    this.enqueue(message);
    return true;
  }

  /** Queues a message that must follow an accepted opening (a terminal). Never refused while running. */
  push(message: string): void {
    if (this.stopped) return;
    this.enqueue(message);
  }

  private enqueue(message: string): void {
    this.items.push(message);
    this.bytes += message.length;
    const queued = this.items.length - this.head;
    this.stats.queued = queued;
    this.stats.queuedBytes = this.bytes;
    if (queued > this.stats.highWater) this.stats.highWater = queued;
    if (this.bytes > this.stats.highWaterBytes) this.stats.highWaterBytes = this.bytes;
    if (!this.draining) {
      // Never a synchronous write: dispatch returns before any I/O happens.
      this.draining = true;
      const wait = this.lastWriteAt + this.minWriteIntervalMs - performance.now();
      if (wait <= 0) setImmediate(() => void this.drain());
      else setTimeout(() => void this.drain(), wait);
    }
  }

  private async drain(): Promise<void> {
    while (!this.stopped && this.head < this.items.length) {
      let batch = '';
      let count = 0;
      while (this.head < this.items.length && (count === 0 || batch.length + this.items[this.head]!.length <= this.maxBatchChars)) {
        batch += this.items[this.head]!;
        this.head += 1;
        count += 1;
      }
      // Handed to the transport: a batch in flight is bounded by maxBatchChars, not by the queue.
      this.bytes -= batch.length;
      this.stats.queuedBytes = this.bytes;
      if (this.head > 4096 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      this.stats.queued = this.items.length - this.head;
      try {
        this.lastWriteAt = performance.now();
        await this.write(batch);
        this.stats.sent += count;
      } catch (error) {
        this.stop();
        this.onError(error instanceof Error ? error : new Error(String(error)));
        break;
      }
    }
    this.draining = false;
    if (this.head >= this.items.length) {
      this.items = [];
      this.head = 0;
      this.bytes = 0;
      this.stats.queued = 0;
      this.stats.queuedBytes = 0;
    }
    this.wakeIdleWaiters();
  }

  private wakeIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Resolves once everything queued so far has been written (or the queue stopped). */
  idle(): Promise<void> {
    if (!this.draining || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Discards what is waiting and refuses everything after (connection gone). */
  stop(): void {
    this.stopped = true;
    this.items = [];
    this.head = 0;
    this.bytes = 0;
    this.stats.queued = 0;
    this.stats.queuedBytes = 0;
    this.wakeIdleWaiters();
  }
}
