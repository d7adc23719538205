/**
 * Ends a process and everything it started, for script processes that run without bubblewrap.
 * A process group is not enough (a script may call setsid), so on Linux the tree is walked
 * through /proc, each process stopped as it is found so none can fork past the walk, and then
 * all are killed. Elsewhere only the process group can be reached.
 *
 * A SIGSTOP takes effect only when its target next runs, and until then the target can still
 * fork. So each process found is seen stopped before the walk goes on (bounded): a bwrap start
 * cut short forked its child after the walk had looked, and that child, left without its
 * parent-death signal, slept under init for good (`cut-short.test.ts`, 2 of 12 runs beside four
 * busy loops).
 */
import fs from 'node:fs';

/** The longest the walk waits for one process to stop, in ms: far above a loaded scheduler's delay. */
const STOP_BOUND_MS = 500;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Kills `root`, its process group, and (on Linux) every descendant. Never throws. */
export function killProcessTree(root: number): void {
  const found = process.platform === 'linux' ? stopDescendants(root) : [];
  signal(-root, 'SIGKILL');
  signal(root, 'SIGKILL');
  for (const pid of found) signal(pid, 'SIGKILL');
}

/** Stops `root` and its descendants; returns the descendants. */
function stopDescendants(root: number): number[] {
  stop(root);
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of processParents()) {
      if (!tree.has(pid) && tree.has(ppid)) {
        stop(pid);
        tree.add(pid);
        grew = true;
      }
    }
  }
  tree.delete(root);
  return [...tree];
}

/** Sends SIGSTOP and returns once `pid` is stopped, gone or a zombie (or the bound has passed). */
function stop(pid: number): void {
  signal(pid, 'SIGSTOP');
  const until = performance.now() + STOP_BOUND_MS;
  for (;;) {
    const state = processState(pid);
    if (state === undefined || state === 'T' || state === 't' || state === 'Z' || state === 'X') return;
    if (performance.now() > until) return;
    Atomics.wait(pause, 0, 0, 0.2);
  }
}

/**
 * The fields of /proc/<pid>/stat after the command name (state is [0], ppid [1]), or undefined
 * once the process is gone. The command name may contain spaces and parentheses; the fields after
 * its last ')' do not.
 */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The state letter of a process, or undefined once it is gone. */
function processState(pid: number): string | undefined {
  return statFields(pid)?.[0];
}

/** `[pid, ppid]` of every visible process. */
function processParents(): [number, number][] {
  const out: [number, number][] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(name);
    // Undefined: it exited while we looked.
    if (fields !== undefined) out.push([Number(name), Number(fields[1])]);
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone, or (for a group) no such group
  }
}
