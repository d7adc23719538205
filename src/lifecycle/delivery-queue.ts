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
 *
 * The rate budget admits a burst of up to one second's worth of calls, and the writes carry
 * them out at no more than the rate (openings counted; credit for at most two longest spacings
 * is held, so late timers do not slow a stream at exactly the rate). Without this, a script's
 * burst reached every observer at once: four observer processes on the MCP SDK spend ~60 µs of
 * CPU per call each, so the 1,000 calls of a burst cost them ~230 ms of CPU within the burst,
 * on the same cores as the script that made it (issue 22: 10,000 sequential calls through the
 * host path ran at ~33k/s with four observers against ~53k/s with the same observers stopped,
 * and ~54k/s paced). Paced, an observer's
 * work keeps to its budget at every moment; a burst reaches it up to a second late. A lifted
 * budget (`Infinity`) paces nothing, and {@link DeliveryQueue.flushNow} (the host's `flush`
 * and close) writes what waits at once.
 */

/**
 * Default size bound of one observer's queue, in characters of JSON: 16 MiB holds a burst of
 * ~38,000 small calls (two ~220-character messages each) while the observer catches up, and
 * ~1,000 calls with 15 KB inputs. What a stuck observer costs the host is this plus ~24 bytes
 * per waiting message (its string header and slot: about a tenth more for the smallest ones).
 */
export const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/**
 * Default spacing of writes to one observer at the start of a stream, in ms. A write after a
 * quiet spell goes out at once; the messages of the next 5 ms share one write.
 */
export const DEFAULT_MIN_WRITE_INTERVAL_MS = 5;

/**
 * Default spacing a sustained stream grows to, in ms (see {@link nextWriteInterval}). Each write
 * wakes an observer process, and on the 2-core machine the waker pays for waking a sleeping one:
 * with four SDK-based observer processes and 10,000 sequential inner calls through the host
 * path, the host's thread spent ~10 µs per call in its pipe writes at 5 ms spacing, and
 * whole-path calls ran at a median 5.1k/s against 7.0k/s at 20 ms and 9.5k/s at 50 ms (8
 * processes each, interleaved). A message waits at most this long for its write.
 */
export const DEFAULT_MAX_WRITE_INTERVAL_MS = 50;

/** A batch of at least this many messages doubles the spacing; one of at most {@link SPARSE_BATCH} halves it. */
const DENSE_BATCH = 16;
const SPARSE_BATCH = 2;

/**
 * The spacing after a write of `batch` messages: a dense stream waits longer between writes (up
 * to `max`), a sparse one shorter (down to `min`), so one call now and then is delivered within
 * `min` while a flood costs each observer a wake-up per `max`.
 */
export function nextWriteInterval(current: number, batch: number, min: number, max: number): number {
  if (batch >= DENSE_BATCH) return Math.min(Math.max(min, max), Math.max(min, current * 2, 1));
  if (batch <= SPARSE_BATCH) return Math.max(min, current / 2);
  return current;
}

/** A token bucket's level after `elapsedMs` at `rate` per second, held to `cap`: both budgets below refill so. */
function refilled(level: number, elapsedMs: number, rate: number, cap: number): number {
  return Math.min(cap, level + (elapsedMs / 1000) * rate);
}

export interface DeliveryStats {
  /** Messages handed to the transport. */
  sent: number;
  /**
   * Calls whose opening the observer never received: refused because the queue or the rate
   * budget was full, or still waiting (or in a failed write) when the queue stopped.
   */
  droppedCalls: number;
  /** Messages the observer never received because they were waiting, or in a failed write, when the queue stopped. */
  droppedMessages: number;
  /** Messages waiting now. */
  queued: number;
  /** Highest number of messages ever waiting at once. */
  highWater: number;
  /** Size of the messages waiting now (characters of JSON, about a byte each). */
  queuedBytes: number;
  /** Highest {@link queuedBytes} ever. */
  highWaterBytes: number;
  /** The spacing of writes now, in ms: it grows while the stream is dense ({@link nextWriteInterval}). */
  writeIntervalMs: number;
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
   * (RFC-007 §7.4 lets hosts drop at high rates). Bursts up to one second's worth pass, and
   * are written at no more than this rate. `Infinity` disables the limit and the pacing.
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
  /** The spacing a sustained stream of messages grows to (default {@link DEFAULT_MAX_WRITE_INTERVAL_MS}). */
  maxWriteIntervalMs?: number;
  /**
   * The counts of the queue this one takes over from (the observer's previous connection):
   * `sent`, `droppedCalls` and `droppedMessages` go on from there, so they never go back.
   */
  carried?: Pick<DeliveryStats, 'sent' | 'droppedCalls' | 'droppedMessages'>;
}

export class DeliveryQueue {
  private items: string[] = [];
  /** Parallel to {@link items}: whether the message opens a call (what pacing counts). */
  private openings: boolean[] = [];
  private head = 0;
  private draining = false;
  private stopped = false;
  private readonly maxQueued: number;
  private readonly maxQueuedBytes: number;
  private bytes = 0;
  private readonly maxBatchChars: number;
  private readonly rate: number;
  private readonly minWriteIntervalMs: number;
  private readonly maxWriteIntervalMs: number;
  /** The spacing now: grows while batches are dense, shrinks while they are sparse. */
  private writeIntervalMs: number;
  private lastWriteAt = -Infinity;
  private tokens: number;
  private refilledAt = performance.now();
  /**
   * Most write credit pacing holds: the rate's worth of two longest spacings. One spacing's
   * worth lost what late timers earned beyond it, so a stream at exactly the rate fell behind
   * and waited (lag p50 47–51 ms against 27 ms unpaced, 1,000 calls/s to 4 observers).
   */
  private readonly paceCapacity: number;
  /** Openings that may be written now: refills at the rate, up to {@link paceCapacity}. */
  private writeCredit: number;
  private creditAt = performance.now();
  /** Set by {@link flushNow}: what is queued leaves without pacing (closing, or a caller's flush). */
  private urgent = false;
  /** The timer of a drain waiting for write credit. */
  private pacedTimer: ReturnType<typeof setTimeout> | undefined;
  private idleWaiters: (() => void)[] = [];
  readonly stats: DeliveryStats = { sent: 0, droppedCalls: 0, droppedMessages: 0, queued: 0, highWater: 0, queuedBytes: 0, highWaterBytes: 0, writeIntervalMs: 0 };

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
    this.maxWriteIntervalMs = options.maxWriteIntervalMs ?? DEFAULT_MAX_WRITE_INTERVAL_MS;
    this.writeIntervalMs = this.minWriteIntervalMs;
    this.stats.writeIntervalMs = this.writeIntervalMs;
    this.tokens = this.rate;
    this.paceCapacity = Math.max(1, (this.rate * 2 * this.maxWriteIntervalMs) / 1000);
    this.writeCredit = this.paceCapacity;
    if (options.carried !== undefined) {
      const { sent, droppedCalls, droppedMessages } = options.carried;
      Object.assign(this.stats, { sent, droppedCalls, droppedMessages });
    }
  }


  /** Whether an opening would be accepted now (queue room and rate budget). */
  hasRoom(): boolean {
    if (this.stopped || this.items.length - this.head >= this.maxQueued || this.bytes >= this.maxQueuedBytes) return false;
    if (this.rate === Infinity) return true;
    if (this.tokens < 1) {
      const now = performance.now();
      this.tokens = refilled(this.tokens, now - this.refilledAt, this.rate, this.rate);
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
    this.enqueue(message, true);
    return true;
  }

  /** Queues a message that must follow an accepted opening (a terminal). Never refused while running. */
  push(message: string): void {
    if (this.stopped) return;
    this.enqueue(message, false);
  }

  private enqueue(message: string, opening: boolean): void {
    this.items.push(message);
    this.openings.push(opening);
    this.bytes += message.length;
    const queued = this.items.length - this.head;
    this.stats.queued = queued;
    this.stats.queuedBytes = this.bytes;
    if (queued > this.stats.highWater) this.stats.highWater = queued;
    if (this.bytes > this.stats.highWaterBytes) this.stats.highWaterBytes = this.bytes;
    if (!this.draining) {
      // Never a synchronous write: dispatch returns before any I/O happens.
      this.draining = true;
      const wait = this.lastWriteAt + this.writeIntervalMs - performance.now();
      if (wait <= 0) setImmediate(() => void this.drain());
      else setTimeout(() => void this.drain(), wait);
    }
  }

  private async drain(): Promise<void> {
    while (!this.stopped && this.head < this.items.length) {
      let credit = Infinity;
      if (this.rate !== Infinity && !this.urgent) {
        const now = performance.now();
        this.writeCredit = refilled(this.writeCredit, now - this.creditAt, this.rate, this.paceCapacity);
        this.creditAt = now;
        credit = this.writeCredit;
        if (credit < 1 && this.openings[this.head]) {
          // Paced: the rest leaves once the rate has earned it, one spacing later.
          this.pacedTimer = setTimeout(() => {
            this.pacedTimer = undefined;
            void this.drain();
          }, this.writeIntervalMs);
          return;
        }
      }
      let batch = '';
      let count = 0;
      let opened = 0;
      while (this.head < this.items.length && (count === 0 || batch.length + this.items[this.head]!.length <= this.maxBatchChars)) {
        if (this.openings[this.head]) {
          if (opened + 1 > credit) break;
          opened += 1;
        }
        batch += this.items[this.head]!;
        this.head += 1;
        count += 1;
      }
      if (credit !== Infinity) this.writeCredit -= opened;
      // Handed to the transport: a batch in flight is bounded by maxBatchChars, not by the queue.
      this.bytes -= batch.length;
      this.stats.queuedBytes = this.bytes;
      if (this.head > 4096 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.openings = this.openings.slice(this.head);
        this.head = 0;
      }
      this.stats.queued = this.items.length - this.head;
      this.writeIntervalMs = nextWriteInterval(this.writeIntervalMs, count, this.minWriteIntervalMs, this.maxWriteIntervalMs);
      this.stats.writeIntervalMs = this.writeIntervalMs;
      try {
        this.lastWriteAt = performance.now();
        await this.write(batch);
        this.stats.sent += count;
      } catch (error) {
        // The batch never reached the observer: its calls and messages are dropped.
        this.stats.droppedCalls += opened;
        this.stats.droppedMessages += count;
        this.stop();
        this.onError(error instanceof Error ? error : new Error(String(error)));
        break;
      }
    }
    this.draining = false;
    this.urgent = false;
    if (this.head >= this.items.length) {
      this.items = [];
      this.openings = [];
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

  /** Writes what is queued now without pacing, and resolves once it is written. */
  flushNow(): Promise<void> {
    if (!this.draining || this.stopped) return Promise.resolve();
    this.urgent = true;
    if (this.pacedTimer !== undefined) {
      clearTimeout(this.pacedTimer);
      this.pacedTimer = undefined;
      setImmediate(() => void this.drain());
    }
    return this.idle();
  }

  /** Discards what is waiting, counted as dropped, and refuses everything after (connection gone). */
  stop(): void {
    for (let i = this.head; i < this.items.length; i++) if (this.openings[i]) this.stats.droppedCalls += 1;
    this.stats.droppedMessages += this.items.length - this.head;
    this.stopped = true;
    clearTimeout(this.pacedTimer);
    this.pacedTimer = undefined;
    this.items = [];
    this.openings = [];
    this.head = 0;
    this.bytes = 0;
    this.stats.queued = 0;
    this.stats.queuedBytes = 0;
    this.wakeIdleWaiters();
  }
}
