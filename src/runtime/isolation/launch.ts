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
import { killProcessTree } from './process-tree.ts';
import { selectIsolation, type SelectOptions } from './select.ts';
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
}

/** A started script process. */
export class ScriptProcess {
  readonly child: ChildProcess;
  readonly isolation: IsolationPlan;
  #innerPid: number | undefined;

  constructor(request: LaunchRequest) {
    this.isolation = request.isolation;
    const stdio = [...request.stdio] as StdioOptions & unknown[];
    if (request.isolation.kind === 'none') {
      this.child = spawn(request.command, request.args, { stdio, env: request.env, detached: request.detached ?? false, windowsHide: true });
      this.#innerPid = this.child.pid;
      return;
    }
    for (const m of request.mounts ?? []) {
      if (!fs.existsSync(m.path)) throw new IsolationError(`granted mount ${JSON.stringify(m.path)} does not exist`);
    }
    const infoFd = stdio.length;
    stdio.push('pipe');
    const { argv, env } = bwrapCommand({
      command: request.command,
      args: request.args,
      readOnly: request.readOnly,
      system: systemLayout(),
      mounts: request.mounts ?? [],
      env: request.env,
      infoFd,
    });
    const child = spawn(request.isolation.bwrap, argv, { stdio, env, detached: request.detached ?? false, windowsHide: true });
    this.child = child;
    const info = child.stdio[infoFd] as Readable | null;
    if (info) readChildPid(info, (pid) => (this.#innerPid = pid));
    // Callers that only know `child.kill()` reach the interpreter itself: bwrap then reaps it and
    // exits with its pipes already closed. Killing bwrap first would end it while the
    // interpreter (killed a moment later by --die-with-parent) still holds the pipes.
    const killOuter = child.kill.bind(child);
    child.kill = (sig?: NodeJS.Signals | number): boolean => {
      const inner = this.#innerPid;
      if (inner === undefined || child.exitCode !== null || child.signalCode !== null) return killOuter(sig);
      try {
        process.kill(inner, sig ?? 'SIGTERM');
        return true;
      } catch {
        return killOuter(sig);
      }
    };
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
  options: { readOnly: readonly string[]; env: Record<string, string>; stdio: LaunchRequest['stdio']; detached?: boolean } & SelectOptions,
): ChildProcess {
  const isolation = selectIsolation(checkMode(mode), options);
  const real = isolation.kind === 'bwrap' ? fs.realpathSync(command) : command;
  return new ScriptProcess({ isolation, command: real, args, readOnly: [real, ...options.readOnly], env: options.env, stdio: options.stdio, ...(options.detached ? { detached: true } : {}) }).child;
}
