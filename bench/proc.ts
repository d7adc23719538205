/**
 * The process tree of a benchmark (Linux /proc): its descendants, their RSS, and which of them
 * are sandbox processes — what the scale figures count as memory and processes.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Descendant pids of this process. */
export function descendants(): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    // No /proc (not Linux): no descendants to see; callers' figures are then 0.
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(process.pid);
  return out;
}

export function rssBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** RSS of this process and every descendant. */
export function treeRss(): number {
  return process.memoryUsage().rss + descendants().reduce((sum, pid) => sum + rssBytes(pid), 0);
}

/** Node processes below this one running the sandbox entry (`main.mjs`). */
export function sandboxPids(): number[] {
  return descendants().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('main.mjs');
    } catch {
      return false;
    }
  });
}
