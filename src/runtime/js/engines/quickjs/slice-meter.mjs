// Inline only: whether a slice on the host's thread has run past its bound, judged by the CPU
// the process used as well as by the wall clock. On a loaded machine a thread can wait seconds'
// worth of milliseconds for a core while running nothing; moving a run for that replays it on a
// worker thread for no gain (beside four observer processes, a 10,000-call run moved after a
// 21 ms slice that did one call's work and took 4.5 s instead of 1.1 s). Node 20 has no
// per-thread CPU clock, so the process's CPU stands for the thread's: other threads only add to
// it, which errs towards moving, as the wall clock alone did.

/** How often (ms of wall time) the CPU reference is read again: one getrusage(2) per turn. */
const REFERENCE_EVERY_MS = 4;
/** Slices shorter than this count their wall time as spent without reading the CPU. */
const SHORT_SLICE_MS = 2;

/**
 * @param {object} options
 * @param {number} options.wallSlackMs how much longer than its bound a slice may take in wall
 *   time, whatever its CPU, before it is over anyway (a thread descheduled that long is one the
 *   host's loop waited on that long)
 * @param {() => { user: number, system: number }} [options.cpuUsage] the process's CPU in µs
 */
export function sliceMeter({ wallSlackMs, cpuUsage = process.cpuUsage }) {
  const cpuMs = () => {
    const { user, system } = cpuUsage();
    return (user + system) / 1000;
  };
  let referenceAt = -Infinity;
  let referenceCpu = 0;
  return {
    /**
     * At a slice's start: keeps a CPU reading taken at most REFERENCE_EVERY_MS before it, so the
     * CPU "since the slice began" measured from it is never less than the slice's own.
     */
    begin(now) {
      if (now - referenceAt < REFERENCE_EVERY_MS) return;
      referenceAt = now;
      referenceCpu = cpuMs();
    },
    /**
     * How many ms the slice that started at `start` may still run before it is over `boundMs`:
     * 0 once it is. Over when its wall time passed the bound and the process used `boundMs` of
     * CPU since the reference, or when its wall time passed the bound by `wallSlackMs`.
     */
    /**
     * What a slice from `start` to `end` counts towards a run's total here (what a replay would
     * repeat): its wall time, or less when the process used less CPU since the reference.
     */
    spent(start, end) {
      const wall = end - start;
      return wall < SHORT_SLICE_MS ? wall : Math.min(wall, cpuMs() - referenceCpu);
    },
    left(start, now, boundMs) {
      const wall = now - start;
      if (wall <= boundMs) return boundMs - wall;
      if (wall >= boundMs + wallSlackMs) return 0;
      const used = cpuMs() - referenceCpu;
      return used >= boundMs ? 0 : Math.min(boundMs - used, boundMs + wallSlackMs - wall);
    },
  };
}
