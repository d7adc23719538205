/**
 * CPU time of processes below this one (Linux /proc), for benchmarks that must tell a cost from
 * the load of a shared machine: unlike wall time, the CPU a process spent does not grow while
 * it waits for a core. Elsewhere (no /proc) every figure is 0 and callers say so.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { descendants } from './proc.ts';

const TICK_MS = (() => {
  try {
    return 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  } catch {
    return 10;
  }
})();

/**
 * Fields of /proc/<pid>/stat after the command name: state is [0], ppid [1], utime [11], stime
 * [12], and cutime [13], cstime [14]: what its children that ended (and were waited for) spent.
 */
function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    // The process ended while we looked.
    return undefined;
  }
}

/**
 * CPU milliseconds (user + system) this process and everything below it have spent so far,
 * processes that ended included: an ended child's time is in its parent's cutime/cstime once
 * waited for (a sandbox process the pool replaced, say), so counting those of every live
 * process counts each ended one exactly once.
 */
export function treeCpuMs(): number {
  let ticks = 0;
  const own = statFields(String(process.pid));
  // This process's own time in microseconds rather than ticks; its ended children's in ticks.
  if (own) ticks += Number(own[13]) + Number(own[14]);
  for (const pid of descendants()) {
    const f = statFields(String(pid));
    if (f) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  const { user, system } = process.cpuUsage();
  return ticks * TICK_MS + (user + system) / 1000;
}

/** CPU milliseconds (user + system) process `pid` and its live descendants have spent so far. */
export function pidTreeCpuMs(pid: number): number {
  let ticks = 0;
  for (const p of [pid, ...descendants(pid)]) {
    const f = statFields(String(p));
    if (f) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return ticks * TICK_MS;
}

/** CPU milliseconds (user + system) process `pid` itself has spent so far, its children's not counted. */
export function pidCpuMs(pid: number): number {
  const f = statFields(String(pid));
  return f ? (Number(f[11]) + Number(f[12])) * TICK_MS : 0;
}
