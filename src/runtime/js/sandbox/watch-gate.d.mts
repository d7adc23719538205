/** How long (ms) a side watches after sending a frame the other side replies to. */
export const WATCH_MS: number;

/** Whether one side of a QuickJS thread's bridge watches for the other's reply (watch-gate.mjs). */
export class WatchGate {
  /** When the frame awaiting a reply went out (-1: no reply awaited). */
  sentAt: number;
  /** Moving share of recent replies that came within WATCH_MS. */
  quickShare: number;
  /** A frame the other side replies to went out at `now`. */
  sent(now: number): void;
  /** A frame came from the other side at `now`. */
  received(now: number): void;
  /** Whether to watch for the reply now rather than sleep. */
  readonly open: boolean;
  /** Until when (performance.now() time) a watch for the awaited reply lasts. */
  readonly until: number;
}
