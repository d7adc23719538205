/**
 * The process tree of a benchmark (Linux /proc): its descendants, their RSS, and which of them
 * are sandbox processes — what the scale figures count as memory and processes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Descendant pids of `root` (default: this process). */
export function descendants(root: number = process.pid): number[] {
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
  walk(root);
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

/** A sampler in its own process (rss-sampler.ts) watching a process tree. */
export interface TreeSampler {
  /** Starts a new peak from the tree's RSS now; `root` (default: this process) is the tree watched from now on. */
  reset(root?: number): Promise<void>;
  /** The peak tree RSS since the last reset (bytes), and the latest sample; sampling pauses until the next reset. */
  peak(): Promise<{ peak: number; last: number }>;
  close(): void;
}

/**
 * Starts the out-of-process sampler (every `intervalMs`, default 25), watching this process's
 * tree until a `reset(root)` names another. The sampler leaves itself out of the tree it
 * measures; the measured process pays only two IPC messages per figure. It runs under tsx so
 * that it shares `descendants()` with this file: one /proc walk for every figure.
 */
export async function startTreeSampler(intervalMs = 25): Promise<TreeSampler> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./rss-sampler.ts', import.meta.url)), [String(intervalMs), String(process.pid)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Only the TypeScript loader: none of the measured process's own flags (--expose-gc, --cpu-prof).
    execArgv: ['--import', 'tsx'],
  });
  const next = <T>(type: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: { type: string }) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message as T);
      };
      const onExit = (code: number | null) => reject(new Error(`rss-sampler exited (${code}) before answering ${type}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  await next('ready');
  return {
    async reset(root?: number) {
      const answered = next('reset');
      child.send({ type: 'reset', root: root ?? process.pid });
      await answered;
    },
    async peak() {
      const answered = next<{ peak: number; last: number }>('peak');
      child.send({ type: 'peak' });
      const { peak, last } = await answered;
      return { peak, last };
    },
    close() {
      if (child.connected) child.send({ type: 'stop' });
    },
  };
}
