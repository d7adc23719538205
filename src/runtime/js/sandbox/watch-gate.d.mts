/** How long (ms) a side watches after sending a frame the other side replies to. */
export const WATCH_MS: number;

/** Whether one side of a QuickJS thread's bridge watches for the other's reply (watch-gate.mjs). */
export class WatchGate {
  /** When the frame awaiting a reply went out (-1: no reply awaited). */
  sentAt: number;
  /** Whether this side watches for the awaited reply (decided when it went out). */
  watched: boolean;
  /** Moving share of recent replies judged quick. */
  quickShare: number;
  /** Whether the other side was awake (not asleep waiting for a frame) when it went out. */
  otherAwake: boolean;
  /** A frame the other side replies to went out at `now`, the other side awake or asleep. */
  sent(now: number, otherAwake?: boolean): void;
  /** A frame came from the other side at `now`, which reports it took `tookMicros` since our last frame reached it. */
  received(now: number, tookMicros: number): void;
  /** Whether to watch for the reply now rather than sleep. */
  readonly open: boolean;
  /** Until when (performance.now() time) a watch for the awaited reply lasts. */
  readonly until: number;
}
