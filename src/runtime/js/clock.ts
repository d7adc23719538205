/**
 * A wall-clock deadline that can be paused. While any pause is held the deadline does not run,
 * so time spent waiting on something outside the script (a human approving a call) does not
 * count against it.
 */
export class PausableDeadline {
  private remaining: number;
  private since = 0;
  private timer: NodeJS.Timeout | undefined;
  private pauses = 0;
  private started = false;
  private stopped = false;

  /**
   * `ms` may be Infinity: the deadline then never expires. `now` is the clock the time used is
   * read from (tests give a clock they move by hand, so no assertion depends on a loaded machine).
   */
  constructor(
    ms: number,
    private readonly onExpire: () => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.remaining = ms;
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    if (this.pauses === 0) this.arm();
  }

  /** Holds the deadline until the returned function is called (calling it again does nothing). */
  pause(): () => void {
    if (this.stopped) return () => {};
    if (this.pauses++ === 0) this.disarm();
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.pauses === 0 && this.started && !this.stopped) this.arm();
    };
  }

  /** Whether a pause is held right now. */
  get paused(): boolean {
    return this.pauses > 0;
  }

  /** Milliseconds left right now (Infinity without a limit); frozen while paused. */
  remainingMs(): number {
    if (this.timer === undefined) return this.remaining;
    return Math.max(0, this.remaining - (performance.now() - this.since));
  }

  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  private arm(): void {
    if (!Number.isFinite(this.remaining)) return;
    this.since = this.now();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      this.stopped = true;
      this.onExpire();
    }, Math.max(0, this.remaining));
  }

  private disarm(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.remaining -= this.now() - this.since;
  }
}
