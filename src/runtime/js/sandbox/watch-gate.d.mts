/** How long (ms) a side watches after sending a frame the other side replies to. */
export const WATCH_MS: number;

/** Whether one side of a QuickJS thread's bridge watches for the other's reply (watch-gate.mjs). */
export class WatchGate {
  /** @param cpus the CPUs this process may run on (default: `os.availableParallelism()`); below 2 the gate never opens. */
  constructor(cpus?: number);
  /** Whether a watch can ever pay: a second CPU the other side can run on meanwhile. */
  readonly mayWatch: boolean;
  /** Frames this side has watched for the reply to. */
  watches: number;
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
