/**
 * What may outlive `close()`: processes (read from /proc, so grandchildren a child started are
 * seen too) and the Node handles that keep this process alive.
 */
import { readdirSync, readFileSync } from 'node:fs';

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself contain spaces or parentheses.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, state: rest[0]!, ppid: Number(rest[1]) };
  } catch {
    return undefined;
  }
}

function allProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProc(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** Every live (not zombie) descendant of this process. */
export function descendants(): number[] {
  const procs = allProcs();
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      if (c.state !== 'Z') out.push(c.pid);
      walk(c.pid);
    }
  };
  walk(process.pid);
  return out;
}

/** Which of `pids` still run (a zombie has exited; it only waits to be reaped). */
export function stillAlive(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    const info = readProc(pid);
    return info !== undefined && info.state !== 'Z';
  });
}

/** Active handle kinds by count. */
export function handleCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** Handle kinds present now beyond `baseline`, e.g. `["Timeout×1"]`. */
export function extraHandles(baseline: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [kind, n] of handleCounts()) {
    const extra = n - (baseline.get(kind) ?? 0);
    if (extra > 0) out.push(`${kind}×${extra}`);
  }
  return out;
}

/** A process's command line, for messages. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 160);
  } catch {
    return '?';
  }
}
