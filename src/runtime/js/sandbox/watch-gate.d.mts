/** How long (ms) a side watches after sending a frame the other side replies to. */
export const WATCH_MS: number;
/** Board slot where the host reports how long it took to answer, in µs. */
export const HOST_TOOK_SLOT: number;
/** Board slot where the thread reports how long it took to send its next frame, in µs. */
export const THREAD_TOOK_SLOT: number;
/** Int32 slots of a thread's board. */
export const BOARD_SLOTS: number;
/** A duration in ms as the board holds it: whole µs, within an Int32. */
export function boardMicros(ms: number): number;

/** Whether one side of a QuickJS thread's bridge watches for the other's reply (watch-gate.mjs). */
export class WatchGate {
  /** When the frame awaiting a reply went out (-1: no reply awaited). */
  sentAt: number;
  /** Whether this side watches for the awaited reply (decided when it went out). */
  watched: boolean;
  /** Moving share of recent replies judged quick. */
  quickShare: number;
  /** A frame the other side replies to went out at `now`. */
  sent(now: number): void;
  /** A frame came from the other side at `now`, which reports it took `tookMicros` since our last frame reached it. */
  received(now: number, tookMicros: number): void;
  /** Whether to watch for the reply now rather than sleep. */
  readonly open: boolean;
  /** Until when (performance.now() time) a watch for the awaited reply lasts. */
  readonly until: number;
}
