/**
 * The safety timeouts of every executing call on one timer. A timer per call cost each inner
 * call of a script a `Timeout` object, a closure and two list operations, for a deadline that
 * almost never fires (a 10,000-call script armed and cleared 10,000 of them).
 *
 * Calls with the same timeout length open in time order, so their deadlines come in order: each
 * length is a queue, and the timer is set for the earliest head. A call that ends stays in its
 * queue until the queue reaches it or is compacted (when ended calls outnumber the rest): no
 * search at the end of a call, and memory bounded by twice the calls executing (plus a few
 * hundred). When none is executing the timer is cleared, so it never keeps the process alive
 * for a call that is over.
 */

/** What the deadlines need of a call. */
export interface Deadlined {
  /** `performance.now()` at which the call times out, -1 while it is in no queue; kept here. */
  deadline: number;
  /** The queue it was added to (its timeout length); kept here. */
  deadlineLane: number;
  /** False once the call has ended (its deadline then no longer matters). */
  readonly isOpen: boolean;
}

/** Ended calls a queue may hold before it is compacted, at the least. */
const COMPACT_AT = 256;
/** Longest delay Node's timers take as it is (longer ones fire after 1 ms). */
const MAX_DELAY_MS = 0x7fffffff;

class Lane<T extends Deadlined> {
  items: T[] = [];
  head = 0;
  /** Items from `head` on whose calls have ended and been released. */
  ended = 0;
}

export class CallDeadlines<T extends Deadlined> {
  /** Queues by timeout length, in ms. */
  private readonly lanes = new Map<number, Lane<T>>();
  /** Calls added and not yet released. */
  private live = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the timer is set to fire (`performance.now()` time), Infinity when it is not set. */
  private timerAt = Infinity;

  /** @param expire called once for each call still open at its deadline; it must end the call and release it */
  constructor(private readonly expire: (call: T) => void) {}

  /** Starts `call`'s timeout of `timeoutMs` from now. */
  add(call: T, timeoutMs: number): void {
    call.deadline = performance.now() + timeoutMs;
    call.deadlineLane = timeoutMs;
    let lane = this.lanes.get(timeoutMs);
    if (lane === undefined) this.lanes.set(timeoutMs, (lane = new Lane()));
    lane.items.push(call);
    this.live += 1;
    if (call.deadline < this.timerAt) this.arm(call.deadline);
  }

  /** `call`, added before, has ended: its deadline no longer counts. */
  release(call: T): void {
    this.live -= 1;
    if (this.live === 0) {
      // Nothing executing: drop what the queues still hold and let the process be.
      this.lanes.clear();
      this.disarm();
      return;
    }
    if (call.deadline === -1) return; // taken off its queue when it fell due
    const lane = this.lanes.get(call.deadlineLane);
    if (lane === undefined) return;
    lane.ended += 1;
    if (lane.ended >= COMPACT_AT && lane.ended * 2 > lane.items.length - lane.head) {
      lane.items = lane.items.slice(lane.head).filter((c) => c.isOpen);
      lane.head = 0;
      lane.ended = 0;
      if (lane.items.length === 0) this.lanes.delete(call.deadlineLane);
    }
  }

  /** Calls added and not yet released (tests check that ended calls leave nothing). */
  get size(): number {
    return this.live;
  }

  /** Entries the queues hold, ended calls not yet dropped included (tests check the bound). */
  get held(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.items.length - lane.head;
    return n;
  }

  /** When the timer fires (`performance.now()` time), Infinity when none is set. */
  get armedAt(): number {
    return this.timerAt;
  }

  private arm(at: number): void {
    this.disarm();
    this.timerAt = at;
    // Node's timers count whole milliseconds; one that fires early finds nothing due and re-arms.
    const delay = Math.min(MAX_DELAY_MS, Math.max(1, Math.ceil(at - performance.now())));
    this.timer = setTimeout(() => this.fire(), delay);
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    const due: T[] = [];
    let next = Infinity;
    for (const [length, lane] of this.lanes) {
      while (lane.head < lane.items.length) {
        const call = lane.items[lane.head]!;
        if (call.isOpen && call.deadline > now) break;
        lane.head += 1;
        if (!call.isOpen) lane.ended -= 1;
        else due.push(call);
      }
      if (lane.head === lane.items.length) this.lanes.delete(length);
      else {
        if (lane.head > 1024 && lane.head * 2 > lane.items.length) {
          lane.items = lane.items.slice(lane.head);
          lane.head = 0;
        }
        next = Math.min(next, lane.items[lane.head]!.deadline);
      }
    }
    if (next !== Infinity) this.arm(next);
    // A timer that fired late (a busy loop, a loaded machine) finds calls of several lengths
    // due at once; they expire in the order of their deadlines, as they would have on time.
    if (due.length > 1) due.sort((a, b) => a.deadline - b.deadline);
    for (const call of due) call.deadline = -1;
    // Once the queues are consistent: each expiry ends its call, which releases it here.
    for (const call of due) this.expire(call);
  }
}
