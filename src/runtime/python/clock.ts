/**
 * A run's wall-clock limit that can be paused, e.g. while a human approves a tool call. Pauses
 * nest: the clock runs again only when every pause has been released.
 */
export class PausableDeadline {
  #remaining: number;
  #startedAt = 0;
  #timer: NodeJS.Timeout | null = null;
  #pauses = 0;
  #state: 'idle' | 'running' | 'expired' | 'cancelled' = 'idle';

  constructor(
    limitMs: number,
    private readonly onExpire: () => void,
  ) {
    this.#remaining = limitMs;
  }

  start(): void {
    if (this.#state !== 'idle') return;
    this.#state = 'running';
    if (this.#pauses === 0) this.#arm();
  }

  get expired(): boolean {
    return this.#state === 'expired';
  }

  /** Stops the clock until the returned function is called (calling it twice is harmless). */
  pause(): () => void {
    if (this.#state === 'expired' || this.#state === 'cancelled') return () => {};
    if (this.#pauses++ === 0 && this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
      this.#remaining -= performance.now() - this.#startedAt;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#pauses === 0 && this.#state === 'running') this.#arm();
    };
  }

  cancel(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#state !== 'expired') this.#state = 'cancelled';
  }

  #arm(): void {
    this.#startedAt = performance.now();
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#state = 'expired';
      this.onExpire();
    }, Math.max(0, this.#remaining));
  }
}
