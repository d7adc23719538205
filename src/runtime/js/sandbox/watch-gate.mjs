// When one side of a QuickJS thread's bridge watches for the other's next frame instead of
// sleeping: the thread after a call frame (sandbox/io.mjs), the host's event loop after an
// answer (engines/quickjs/thread.ts). One rule for both sides, kept here.
//
// Why watch at all: on this project's 2-core virtual machine a wake-up goes through the
// hypervisor and the waker pays it (~14 µs in Atomics.notify to a sleeping thread, ~15 µs in a
// thread's postMessage to a sleeping loop). Why only sometimes: a watch that fails burns the CPU
// the other side needs, so it runs only while nearly all recent replies came within it. At load
// 9–13 a threshold of half the replies made sequential calls slower than no watch at all
// (8–12k/s against 12–18k/s); four in five kept them level with it, and idle at 18–28k/s
// against 13k/s.

/** How long (ms) a side watches after sending a frame the other side replies to. */
export const WATCH_MS = 0.05;
/** Share of quick replies below which a side sleeps at once. */
const QUICK_ENOUGH = 0.8;

export class WatchGate {
  /** When the frame awaiting a reply went out (-1: no reply awaited). */
  sentAt = -1;
  /** Moving share of recent replies that came within WATCH_MS; starts hopeful. */
  quickShare = 1;

  /** A frame the other side replies to went out at `now`. */
  sent(now) {
    this.sentAt = now;
  }

  /** A frame came from the other side at `now`: counts it as a reply if one was awaited. */
  received(now) {
    if (this.sentAt < 0) return;
    this.quickShare = this.quickShare * 0.9 + (now - this.sentAt <= WATCH_MS ? 0.1 : 0);
    this.sentAt = -1;
  }

  /** Whether to watch for the reply now rather than sleep. */
  get open() {
    return this.sentAt >= 0 && this.quickShare >= QUICK_ENOUGH;
  }

  /** Until when (performance.now() time) a watch for the awaited reply lasts. */
  get until() {
    return this.sentAt + WATCH_MS;
  }
}
