/**
 * A pids cgroup per script process, for the process cap where RLIMIT_NPROC cannot serve: the
 * kernel never applies RLIMIT_NPROC to root (uid 0 is exempt, in every user namespace), and a
 * normal user's RLIMIT_NPROC outside bubblewrap counts all of that user's processes. A cgroup
 * counts exactly the tasks of one sandbox, for any user who may create one: here root, with a
 * cgroup v1 `pids` hierarchy or a cgroup v2 root that delegates `pids`.
 *
 * The process enters its group before it can fork: a shell writes its own pid into the group
 * and then execs the command (same pid), so nothing it starts escapes the count.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Where groups are created, once found writable; null when no pids hierarchy is usable here. */
let hierarchy: string | null | undefined;
let seq = 0;
const live = new Set<PidsGroup>();

/** Candidate hierarchies: cgroup v1's pids mount, and cgroup v2's root when it delegates pids. */
function candidates(): string[] {
  const out = ['/sys/fs/cgroup/pids'];
  try {
    if (fs.readFileSync('/sys/fs/cgroup/cgroup.subtree_control', 'utf8').split(/\s+/).includes('pids')) out.push('/sys/fs/cgroup');
  } catch {
    // not cgroup v2 at /sys/fs/cgroup
  }
  return out;
}

/** The directory groups are made in, tried once per host process (a mkdir and an rmdir). */
export function pidsHierarchy(): string | null {
  if (hierarchy !== undefined) return hierarchy;
  hierarchy = null;
  if (process.platform !== 'linux') return hierarchy;
  for (const dir of candidates()) {
    const probe = path.join(dir, `toolcell-probe-${process.pid}`);
    try {
      fs.mkdirSync(probe);
      const usable = fs.existsSync(path.join(probe, 'pids.max'));
      fs.rmdirSync(probe);
      if (usable) {
        sweep(dir);
        return (hierarchy = dir);
      }
    } catch {
      // not writable by this user
    }
  }
  return hierarchy;
}

/**
 * Removes the empty groups of hosts that are gone: a host that exits while a killed process's
 * last task is still dying cannot remove its group, and nothing else would.
 */
function sweep(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^toolcell-(\d+)-\d+$/.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    try {
      fs.rmdirSync(path.join(dir, name));
    } catch {
      // still holds a task, or another host removed it first
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One script process's pids cgroup. */
export class PidsGroup {
  readonly dir: string;

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** A new group holding at most `max` tasks, or null when no hierarchy is usable here. */
  static create(max: number): PidsGroup | null {
    const root = pidsHierarchy();
    if (root === null) return null;
    const dir = path.join(root, `toolcell-${process.pid}-${++seq}`);
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'pids.max'), String(max));
    } catch {
      try {
        fs.rmdirSync(dir);
      } catch {
        // never made
      }
      return null;
    }
    const group = new PidsGroup(dir);
    live.add(group);
    installExitHook();
    return group;
  }

  /**
   * Prefix for a command line: a shell that moves itself into the group, then execs the rest.
   * The shell exports a PWD of its own, dropped unless the environment had one (`keepPwd`).
   */
  enterArgv(keepPwd: boolean): string[] {
    return ['/bin/sh', '-c', `echo $$ > "$0" && ${keepPwd ? '' : 'unset PWD && '}exec "$@"`, path.join(this.dir, 'cgroup.procs')];
  }

  /** Whether a fork was refused for reaching the cap (the kernel counts refusals in pids.events). */
  refusedAny(): boolean {
    try {
      const m = /^max (\d+)/m.exec(fs.readFileSync(path.join(this.dir, 'pids.events'), 'utf8'));
      return m !== null && Number(m[1]) > 0;
    } catch {
      return false;
    }
  }

  /**
   * Removes the group once its tasks are gone; retried briefly, since the last of them may still
   * be exiting when the script process's own exit is seen.
   */
  remove(attempt = 0): void {
    try {
      fs.rmdirSync(this.dir);
      live.delete(this);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') live.delete(this);
      else if (code === 'EBUSY' && attempt < 50) setTimeout(() => this.remove(attempt + 1), 20).unref();
    }
  }
}

let exitHook = false;
function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const group of live) {
      try {
        fs.rmdirSync(group.dir);
      } catch {
        // still busy: a process of it outlived the host
      }
    }
  });
}
