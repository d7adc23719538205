/**
 * Ends a process and everything it started, for script processes that run without bubblewrap.
 * A process group is not enough (a script may call setsid), so on Linux the tree is walked
 * through /proc, each process stopped as it is found so none can fork past the walk, and then
 * all are killed. Elsewhere only the process group can be reached.
 */
import fs from 'node:fs';

/** Kills `root`, its process group, and (on Linux) every descendant. Never throws. */
export function killProcessTree(root: number): void {
  const found = process.platform === 'linux' ? stopDescendants(root) : [];
  signal(-root, 'SIGKILL');
  signal(root, 'SIGKILL');
  for (const pid of found) signal(pid, 'SIGKILL');
}

/** Stops `root` and its descendants; returns the descendants. */
function stopDescendants(root: number): number[] {
  signal(root, 'SIGSTOP');
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of processParents()) {
      if (!tree.has(pid) && tree.has(ppid)) {
        signal(pid, 'SIGSTOP');
        tree.add(pid);
        grew = true;
      }
    }
  }
  tree.delete(root);
  return [...tree];
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
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      // The command name may contain spaces and parentheses; the fields after its last ')' do not.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push([Number(name), Number(fields[1])]);
    } catch {
      // exited while we looked
    }
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
