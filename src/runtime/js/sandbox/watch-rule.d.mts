/** How long (ms) a side watches after sending a frame the other side replies to. */
export const WATCH_MS: number;
/** How often (ms) the host looks again at the machine's runnable tasks. */
export const RECHECK_MS: number;
/** Whether a watch pays with `runnable` tasks (the looking thread included) on `cpus` CPUs. */
export function watchPays(runnable: number, cpus: number): boolean;
/** The runnable tasks in the text of /proc/loadavg (its fourth field, `running/total`); NaN if malformed. */
export function runnableTasks(stat: string): number;
/** The host's view of the rule (watch-rule.mjs), looked at again every RECHECK_MS. */
export class WatchRule {
  /** @param cpus CPUs this process may use; @param readStat the text of /proc/loadavg, or null where there is none. */
  constructor(cpus?: number, readStat?: () => string | null);
  /** Whether a watch pays now (`now`: performance.now()). */
  now(now: number): boolean;
}
/** The one rule every thread of this host shares. */
export const hostWatchRule: WatchRule;
