// When the two sides of a QuickJS thread's bridge watch for each other's next frame instead of
// sleeping: the thread after a call frame (sandbox/io.mjs), the host's event loop after an
// answer (engines/quickjs/thread.ts). One rule for both, decided by the host and kept here.
//
// The rule: watch only while the machine has a CPU for each side, that is while the tasks the
// kernel counts as runnable right now (the fourth field of /proc/loadavg, `running/total`, the
// looking thread itself included) are no more than the CPUs this process may use. A watch pays only when the other side is on a CPU
// of its own meanwhile: then the reply is picked up without a wake-up (on the 2-core virtual
// machine a wake-up costs the waker ~15 µs through the hypervisor, and the woken side its
// scheduling delay). When every CPU is taken, a watch holds the CPU the other side needs to
// reply, and each side's turn ends in the scheduler's queue instead.
//
// Why not judge by how quick the replies were (the rule this replaced, which weighed each
// reply's arrival and the other side's own report of its time): under load it kept reopening on
// quick reports and failing on late arrivals. 10,000 sequential calls through `ToolHost` +
// `code_execution`, processes interleaved, beside two busy loops at load 13–18: 1.2–2.3k calls/s
// with that rule, 3.9–9.5k/s never watching, pi-codemode 1.9–5.1k/s; at load 9–12 with no busy
// loop: 3.2–8.3k/s against 7.8–15.8k/s never watching.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * How long (ms) a side watches after sending a frame the other side replies to. With the
 * mailboxes, 200 µs measured better than 50 µs (a reply delayed past 50 µs by a preemption sent
 * the side to sleep) and no worse than 500 µs.
 */
export const WATCH_MS = 0.2;
/**
 * How often (ms) the host looks again at the machine's runnable tasks: a read of /proc/loadavg
 * (a few dozen bytes on any machine, unlike /proc/stat) costs tens of µs, and load changes over
 * seconds, not microseconds.
 */
export const RECHECK_MS = 100;

/**
 * Whether a watch pays with `runnable` tasks on `cpus` CPUs (the pure part of the rule): each
 * side needs a CPU of its own. Fewer than two CPUs: never.
 * @param {number} runnable runnable tasks, the looking thread included
 * @param {number} cpus CPUs this process may use
 */
export function watchPays(runnable, cpus) {
  return cpus >= 2 && runnable <= cpus;
}

/** The runnable tasks in the text of /proc/loadavg (`0.52 0.61 0.70 3/512 1234`: 3); NaN if malformed. */
export function runnableTasks(loadavg) {
  const match = /^\S+ \S+ \S+ (\d+)\//.exec(loadavg);
  return match === null ? Number.NaN : Number(match[1]);
}

/** The host's view of the rule, looked at again every RECHECK_MS. */
export class WatchRule {
  /**
   * @param {number} cpus CPUs this process may use (its affinity)
   * @param {() => string | null} readStat the text of /proc/loadavg, or null where there is none
   *   (then no side ever watches)
   */
  constructor(cpus = availableParallelism(), readStat = readLoadavg) {
    this.cpus = cpus;
    this.readStat = readStat;
    this.checkedAt = Number.NEGATIVE_INFINITY;
    this.pays = false;
  }

  /** Whether a watch pays now (`now`: performance.now()). */
  now(now) {
    if (now - this.checkedAt >= RECHECK_MS) {
      this.checkedAt = now;
      const stat = this.cpus >= 2 ? this.readStat() : null;
      this.pays = stat !== null && watchPays(runnableTasks(stat), this.cpus);
    }
    return this.pays;
  }
}

function readLoadavg() {
  try {
    return readFileSync('/proc/loadavg', 'latin1');
  } catch (error) {
    // No readable /proc (not Linux, or a restricted one): no side watches; the bridge still
    // works, by wake-ups.
    if (error.code === 'ENOENT' || error.code === 'EACCES') return null;
    throw error;
  }
}

/** The one rule every thread of this host shares. */
export const hostWatchRule = new WatchRule();
