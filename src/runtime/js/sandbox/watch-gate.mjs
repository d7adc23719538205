// When one side of a QuickJS thread's bridge watches for the other's next frame instead of
// sleeping: the thread after a call frame (sandbox/io.mjs), the host's event loop after an
// answer (engines/quickjs/thread.ts). One rule for both sides, kept here.
//
// Why watch at all: on this project's 2-core virtual machine a wake-up goes through the
// hypervisor and the waker pays it (~14 µs in Atomics.notify to a sleeping thread, ~15 µs in a
// thread's postMessage to a sleeping loop). Why only sometimes: a watch that fails burns the CPU
// the other side needs, so it runs only while nearly all of the other side's recent replies were
// quick. At load 9–13 a threshold of half the replies made sequential calls slower than no
// watch at all (8–12k/s against 12–18k/s); four in five kept them level with it, and idle at
// 18–28k/s against 13k/s.
//
// What counts as quick depends on whether the reply's arrival time measures the other side. It
// does when this side watched and the other side was awake when our frame went out: then the
// arrival says it exactly, within the watch or not. It does not when this side slept (the
// arrival includes this side's own wake-up), nor when the other side slept (it includes the
// other side's wake-up, which is no sign that the other side is slow: it would vanish if both
// watched). Then the other side's report of the time it *itself* took between our frame and its
// reply (on the board: sandbox/board.mjs) stands in, counted as quick within half a watch (its
// own wake-up would take some of the rest), and weighed less, so that a side probes again only
// after a run of such reports. Before, only arrival counted: once both sides slept (the first
// thousands of calls of a process are slow), every reply looked slow to both and neither watched
// again — whole rounds of 10,000 calls with both gates shut, 5–10k/s where 25k/s was possible.
// Measured in 5 interleaved processes of 5 rounds of 10,000 sequential calls (median of rounds
// 2–5): idle 17.4k/s before, 21.4k/s with reports; beside two busy loops 6.3k/s before, 7.7k/s
// with them, against 6.0k/s never watching and 3.3k/s always watching. Reports alone still let
// the two sides lock out of phase: a side that probed while the other slept saw its watch end
// just before the reply (the other's wake-up is about a watch long on this machine), counted it
// slow and shut again, so each side opened only while the other was shut — the full host path
// spent whole rounds at 2–3k calls/s with the thread asleep on 80–95% of its calls.
//
// Why never on one CPU: there a watch cannot end early, since the other side needs the CPU the
// watch holds. Each watch only delays the reply it waits for, and the rule above still reopens the
// gate: a reply that found the other side asleep is judged by the other side's own quick report.
// In a process held to one CPU (`taskset -c 0`, 10,000 sequential `JsRuntime` calls, 6 processes
// interleaved), watching as on two CPUs gave 5.5–6.4k calls/s at 155–200 µs of CPU per call; never
// watching gave 6.3–9.0k/s at 110–155 µs. Whether one side alone should stop: the host alone not
// watching gave 6.0–7.4k/s, the thread alone 4.6–5.7k/s, so both stop.
import { availableParallelism } from 'node:os';

/**
 * How long (ms) a side watches after sending a frame the other side replies to. 50 µs until the
 * mailboxes (sandbox/mailbox.mjs); with them, 200 µs measured better everywhere, 10,000
 * sequential calls, medians of interleaved processes: `JsRuntime` beside two busy loops 7.5k/s
 * at 50 µs against 11.1k/s (a reply delayed past 50 µs by a preemption shut the gate, and a
 * sleeping side's wake-up then cost more than the watch), idle 23.3k/s against 31.7k/s; the host
 * path with four observers idle 8.8k/s against 16.1k/s, loaded 2.9k/s against 4.4k/s. 500 µs was
 * no better than 200 µs.
 */
export const WATCH_MS = 0.2;
/** Share of quick replies below which a side sleeps at once. */
const QUICK_ENOUGH = 0.8;

/** Weight of a watched reply's outcome in the moving share, and of a report while sleeping. */
const WATCHED_WEIGHT = 0.1;
const REPORTED_WEIGHT = 0.02;

export class WatchGate {
  /**
   * @param {number} cpus the CPUs this process may run on (its affinity: `os.availableParallelism()`);
   *   below 2 the gate never opens (see the header).
   */
  constructor(cpus = availableParallelism()) {
    /** Whether a watch can ever pay: a second CPU the other side can run on meanwhile. */
    this.mayWatch = cpus >= 2;
  }

  /** When the frame awaiting a reply went out (-1: no reply awaited). */
  sentAt = -1;
  /** Whether this side watches for the awaited reply (decided when it went out). */
  watched = false;
  /** Moving share of recent replies judged quick (see the header); starts hopeful. */
  quickShare = 1;

  /** Whether the other side was awake (not asleep waiting for a frame) when it went out. */
  otherAwake = true;

  /** Frames this side has watched for the reply to (for diagnostics and tests). */
  watches = 0;

  /** A frame the other side replies to went out at `now`, the other side awake or asleep. */
  sent(now, otherAwake = true) {
    this.sentAt = now;
    this.watched = this.mayWatch && this.quickShare >= QUICK_ENOUGH;
    if (this.watched) this.watches++;
    this.otherAwake = otherAwake;
  }

  /**
   * A frame came from the other side at `now`, which reports it took `tookMicros` since our last
   * frame reached it: counts it as a reply if one was awaited.
   */
  received(now, tookMicros) {
    if (this.sentAt < 0) return;
    if (this.watched && this.otherAwake) this.quickShare += WATCHED_WEIGHT * ((now - this.sentAt <= WATCH_MS ? 1 : 0) - this.quickShare);
    else this.quickShare += REPORTED_WEIGHT * ((tookMicros <= WATCH_MS * 500 ? 1 : 0) - this.quickShare);
    this.sentAt = -1;
  }

  /** Whether to watch for the reply now rather than sleep. */
  get open() {
    return this.sentAt >= 0 && this.watched;
  }

  /** Until when (performance.now() time) a watch for the awaited reply lasts. */
  get until() {
    return this.sentAt + WATCH_MS;
  }
}
