/**
 * Whether a starting interpreter is making progress, read from the kernel: the CPU time a
 * process has used (Linux `/proc/<pid>/stat`). A start on a loaded machine uses CPU slowly but
 * steadily; a hung one (a stuck shim, a blocked disk) uses none. startup.ts extends its limit
 * only for the first kind.
 */
import fs from 'node:fs';

/** CPU clock ticks (user + system) the process has used, or undefined when it cannot be read (not Linux, gone). */
export function cpuTicks(pid: number): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // No /proc here, or the process is gone: no evidence of progress.
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After ')': state is field 3, so utime (14) and stime (15) are at 11 and 12.
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return Number.isFinite(user) && Number.isFinite(system) ? user + system : undefined;
}
