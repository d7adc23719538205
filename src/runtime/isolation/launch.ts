/**
 * Starts a script process (the JavaScript sandbox child, `python3`) with the isolation chosen
 * for it, and gives callers one way to signal and kill it whatever that isolation is. Under
 * bubblewrap the spawned process is bwrap itself; the interpreter's host pid arrives on an
 * extra pipe, so signals such as the Python runner's SIGINT reach the interpreter, not bwrap.
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { bwrapCommand } from './bwrap-argv.ts';
import { planCaps, type CheckedCaps, type MemoryMeasure } from './caps.ts';
import { PidsGroup } from './pids-cgroup.ts';
import { findSystemTool } from './probe.ts';
import { killProcessTree } from './process-tree.ts';
import { announce, selectIsolation, type DiagnosticSink, type SelectOptions } from './select.ts';
import { systemLayout } from './system-layout.ts';
import { checkMode, IsolationError, type IsolationMode, type IsolationPlan, type MountGrant } from './types.ts';

export interface LaunchRequest {
  isolation: IsolationPlan;
  /** The interpreter, resolved to a real path when isolated (the sandbox has no PATH lookup). */
  command: string;
  args: readonly string[];
  /** Host paths the interpreter needs besides system libraries (its prefix, toolcell's files). */
  readOnly: readonly string[];
  /** Checked grants (see `checkMounts`); ignored without isolation, where everything is reachable. */
  mounts?: readonly Required<MountGrant>[];
  /** The process's complete environment. */
  env: Record<string, string>;
  /** Child descriptors 0..n; under bubblewrap one more pipe is appended for its pid report. */
  stdio: readonly ('pipe' | 'ignore' | number)[];
  /** Own process group (for a group kill without isolation). */
  detached?: boolean;
  /** Caps on the process (see caps.ts); absent, none but bubblewrap's default /tmp size. */
  caps?: CheckedCaps;
  /** How the memory cap counts (default `address-space`). */
  memory?: MemoryMeasure;
  /** Told once per distinct sentence which caps cannot be enforced here. */
  onDiagnostic?: DiagnosticSink;
}

let prlimitPath: string | null | undefined;
/** prlimit's resolved path (found once per host process), or null. */
function prlimit(): string | null {
  if (prlimitPath === undefined) {
    const found = findSystemTool('prlimit');
    prlimitPath = found === undefined ? null : fs.realpathSync(found);
  }
  return prlimitPath;
}

/** A started script process. */
export class ScriptProcess {
  readonly child: ChildProcess;
  readonly isolation: IsolationPlan;
  /** The caps this process runs under (absent: none were asked for). */
  readonly caps: CheckedCaps | undefined;
  /** Its pids cgroup, when the process cap is one. */
  readonly pids: PidsGroup | null;
  #innerPid: number | undefined;

  constructor(request: LaunchRequest) {
    this.isolation = request.isolation;
    this.caps = request.caps;
    const stdio = [...request.stdio] as StdioOptions & unknown[];
    const bwrap = request.isolation.kind === 'bwrap';
    const caps = request.caps;
    // The group is made first, so the plan knows whether it exists: a hierarchy that is there
    // but refuses this group falls back to RLIMIT_NPROC or the "not enforced" diagnostic.
    const group = caps && Number.isFinite(caps.processes) ? PidsGroup.create(caps.processes) : null;
    const plan = caps
      ? planCaps(caps, {
        memory: request.memory ?? 'address-space',
        bwrap,
        root: process.getuid?.() === 0,
        cgroup: group !== null,
        prlimit: prlimit() !== null,
      })
      : { rlimits: [], pidsCgroup: false, unenforced: [] };
    for (const sentence of plan.unenforced) announce(request.onDiagnostic, sentence);
    // prlimit sets the rlimits and execs the interpreter (same pid). Under bubblewrap it runs
    // inside the sandbox, so RLIMIT_NPROC counts the tasks of the sandbox's user namespace only.
    let command = request.command;
    let args = [...request.args];
    let readOnly = request.readOnly;
    if (plan.rlimits.length > 0) {
      command = prlimit()!;
      args = [...plan.rlimits, '--', request.command, ...request.args];
      readOnly = [...readOnly, command];
    }
    this.pids = plan.pidsCgroup ? group : null;
    if (group && !this.pids) group.remove();
    // A shell enters the group and execs the rest, before anything of it can fork.
    const enter = (cmd: string, argv: readonly string[]): [string, string[]] => {
      if (!this.pids) return [cmd, [...argv]];
      const [sh, ...pre] = this.pids.enterArgv('PWD' in request.env);
      return [sh!, [...pre, cmd, ...argv]];
    };
    if (!bwrap) {
      const [cmd, argv] = enter(command, args);
      this.child = spawn(cmd, argv, { stdio, env: request.env, detached: request.detached ?? false, windowsHide: true });
      this.#innerPid = this.child.pid;
      this.#removeGroupOnExit();
      return;
    }
    for (const m of request.mounts ?? []) {
      if (!fs.existsSync(m.path)) throw new IsolationError(`granted mount ${JSON.stringify(m.path)} does not exist`);
    }
    const infoFd = stdio.length;
    stdio.push('pipe');
    const bwrapped = bwrapCommand({
      command,
      args,
      readOnly,
      system: systemLayout(),
      mounts: request.mounts ?? [],
      env: request.env,
      infoFd,
      ...(caps ? { tmpBytes: caps.tmpBytes } : {}),
    });
    const [cmd, argv] = enter((request.isolation as { bwrap: string }).bwrap, bwrapped.argv);
    const child = spawn(cmd, argv, { stdio, env: bwrapped.env, detached: request.detached ?? false, windowsHide: true });
    this.child = child;
    this.#removeGroupOnExit();
    const info = child.stdio[infoFd] as Readable | null;
    if (info) readChildPid(info, (pid) => (this.#innerPid = pid));
    // Callers that only know `child.kill()` reach the interpreter itself: bwrap then reaps it and
    // exits with its pipes already closed. Killing bwrap first would end it while the
    // interpreter (killed a moment later by --die-with-parent) still holds the pipes.
    const killOuter = child.kill.bind(child);
    child.kill = (sig?: NodeJS.Signals | number): boolean => {
      const inner = this.#innerPid;
      if (child.exitCode !== null || child.signalCode !== null) return killOuter(sig);
      if (inner === undefined) {
        // Cut short while bwrap sets up: its child may exist without its parent-death signal
        // yet, and it sleeps forever once bwrap dies (waiting for the uid map bwrap never
        // writes). The tree kill stops bwrap before looking for its children, so none is missed.
        if (child.pid === undefined) return false;
        killProcessTree(child.pid);
        return true;
      }
      try {
        process.kill(inner, sig ?? 'SIGTERM');
        return true;
      } catch {
        return killOuter(sig);
      }
    };
  }

  #removeGroupOnExit(): void {
    const group = this.pids;
    if (group) this.child.once('exit', () => group.remove());
  }

  /** Whether the process cap refused a fork (known where it is a pids cgroup). */
  get refusedFork(): boolean {
    return this.pids?.refusedAny() ?? false;
  }

  /** Host pid of the interpreter itself (under bubblewrap, once bwrap has reported it). */
  get innerPid(): number | undefined {
    return this.#innerPid;
  }

  /** Sends `sig` to the interpreter (not to bwrap, which does not forward signals). */
  signal(sig: NodeJS.Signals): void {
    const pid = this.#innerPid;
    if (pid === undefined) return;
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }

  /**
   * SIGKILL to the interpreter and every process it started. Under bubblewrap the interpreter is
   * its pid namespace's init, so its death takes the whole namespace; bwrap goes too.
   */
  killAll(): void {
    const outer = this.child.pid;
    if (this.isolation.kind === 'bwrap' && this.#innerPid !== undefined) {
      // bwrap then reaps the interpreter and exits with 128 + 9; killing bwrap first would
      // leave the interpreter a zombie for the host's init to reap.
      this.signal('SIGKILL');
    } else if (outer !== undefined) {
      // Not reported yet: bwrap's death takes the interpreter (--die-with-parent).
      killProcessTree(outer);
    }
  }
}

/** Reads bwrap's `--info-fd` JSON (`{"child-pid": N, ...}`) as it arrives. */
function readChildPid(info: Readable, found: (pid: number) => void): void {
  let text = '';
  info.setEncoding('utf8');
  info.on('error', () => {});
  let done = false;
  // Read to the end: closing early would kill bwrap with SIGPIPE while it is still writing.
  info.on('data', (chunk: string) => {
    if (done) return;
    text += chunk;
    const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
    if (m) {
      done = true;
      text = '';
      found(Number(m[1]));
    }
  });
}

/**
 * One call site's worth of isolation for a process started synchronously: chooses the
 * isolation for `mode` (cached probe) and starts `command` under it. Throws an
 * {@link IsolationError} when `mode` is `bwrap` and bubblewrap is unavailable.
 */
export function spawnIsolated(
  mode: IsolationMode,
  command: string,
  args: readonly string[],
  options: { readOnly: readonly string[]; env: Record<string, string>; stdio: LaunchRequest['stdio']; detached?: boolean } & Pick<LaunchRequest, 'caps' | 'memory'> & SelectOptions,
): ChildProcess {
  const isolation = selectIsolation(checkMode(mode), options);
  const real = isolation.kind === 'bwrap' ? fs.realpathSync(command) : command;
  return new ScriptProcess({
    isolation,
    command: real,
    args,
    readOnly: [real, ...options.readOnly],
    env: options.env,
    stdio: options.stdio,
    ...(options.detached ? { detached: true } : {}),
    ...(options.caps ? { caps: options.caps, memory: options.memory ?? 'address-space' } : {}),
    ...(options.onDiagnostic ? { onDiagnostic: options.onDiagnostic } : {}),
  }).child;
}
