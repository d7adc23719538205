/**
 * The bubblewrap command line for one script process, as a pure function of what the process
 * needs: no file system access, no probing, so every flag is pinned by unit tests.
 *
 * The sandbox gets new user, pid, network, ipc, uts and cgroup namespaces, no capabilities,
 * its own session, and dies with the host. Its file system is empty but for what is bound in:
 * the system's shared libraries, the interpreter, the toolcell files it executes (all
 * read-only), a private /proc and /dev, a private tmpfs /tmp, and the operator's grants; the
 * root itself is read-only.
 * The command runs as pid 1 of its namespace, so when it dies the kernel kills every process
 * it left behind, and its host pid (reported on `infoFd`) can receive signals directly.
 */
import type { MountGrant } from './types.ts';

/** What a script process needs from the host file system. */
export interface BwrapSpec {
  /** The interpreter's resolved path (no shims, no symlinks). */
  command: string;
  args: readonly string[];
  /** Host paths bound read-only at the same place: interpreter prefix, toolcell's own files. */
  readOnly: readonly string[];
  /** The system's library locations: directories to bind read-only, symlinks to recreate. */
  system: SystemLayout;
  /** Operator grants, already checked (see `checkMounts`). */
  mounts: readonly Required<MountGrant>[];
  /**
   * The complete environment of the process. It is handed to bwrap as its own environment (see
   * {@link bwrapCommand}), never on its command line, which any local user can read.
   */
  env: Readonly<Record<string, string>>;
  /** Descriptor (in the child's table) on which bwrap reports the command's host pid. */
  infoFd?: number;
  /**
   * Size of the private `/tmp` tmpfs in bytes (default {@link DEFAULT_TMP_BYTES}). It is RAM:
   * without a size a script could fill the host's memory by writing files. `Infinity`: the
   * kernel's default size (half the RAM).
   */
  tmpBytes?: number;
  /** Working directory inside the sandbox (default `/tmp`). */
  cwd?: string;
}

/** Where the host keeps what dynamically linked interpreters load. */
export interface SystemLayout {
  /** Existing directories and files bound read-only, e.g. `/usr/lib`, `/etc/ld.so.cache`. */
  binds: readonly string[];
  /** `[link, target]`: symlinks recreated as on the host, e.g. `['/lib', 'usr/lib']`. */
  symlinks: readonly (readonly [string, string])[];
}

/** What to spawn: bwrap's argv (without the executable itself) and its complete environment. */
export interface BwrapCommand {
  argv: string[];
  /** bwrap passes its environment on unchanged; nothing of the host's is added. */
  env: Record<string, string>;
}

/** Default size of a sandbox's private `/tmp`: 64 MiB. */
export const DEFAULT_TMP_BYTES = 64 * 1024 * 1024;

/** The bwrap invocation that runs `spec.command` sandboxed. */
export function bwrapCommand(spec: BwrapSpec): BwrapCommand {
  return { argv: bwrapArgv(spec), env: { ...spec.env } };
}

/** The argv (without the bwrap executable itself) that runs `spec.command` sandboxed. */
export function bwrapArgv(spec: BwrapSpec): string[] {
  const argv = [
    '--unshare-all', // user (when possible), pid, net, ipc, uts, cgroup
    '--die-with-parent',
    '--new-session', // no controlling terminal to push input into
    '--as-pid-1',
    '--cap-drop', 'ALL',
    '--hostname', 'toolcell',
  ];
  const seen = new Set<string>();
  const underTmp: string[] = [];
  // Sorted, so a directory comes before anything inside it and the inner path is skipped.
  for (const p of [...spec.system.binds, ...spec.readOnly].sort()) {
    if (seen.has(p) || coveredBy(p, seen)) continue;
    seen.add(p);
    // A path under /tmp (toolcell installed in a temporary project, say) is bound after the
    // private tmpfs, which would otherwise hide it.
    if (p === '/tmp' || p.startsWith('/tmp/')) underTmp.push(p);
    else argv.push('--ro-bind', p, p);
  }
  for (const [link, target] of spec.system.symlinks) argv.push('--symlink', target, link);
  const tmpBytes = spec.tmpBytes ?? DEFAULT_TMP_BYTES;
  if (tmpBytes !== Infinity && (!Number.isSafeInteger(tmpBytes) || tmpBytes <= 0)) throw new TypeError(`tmpBytes must be a whole number of bytes > 0 (or Infinity), got ${tmpBytes}`);
  argv.push('--proc', '/proc', '--dev', '/dev');
  // Infinity lifts the cap: the kernel's default tmpfs size (half the RAM) then applies.
  if (tmpBytes !== Infinity) argv.push('--size', String(tmpBytes));
  argv.push('--tmpfs', '/tmp');
  for (const p of underTmp) argv.push('--ro-bind', p, p);
  // Grants last, so a grant under /tmp is not hidden by the tmpfs.
  for (const m of spec.mounts) argv.push(m.mode === 'rw' ? '--bind' : '--ro-bind', m.path, m.target);
  // The root is bwrap's own tmpfs; once every mount point exists it is made read-only too.
  argv.push('--remount-ro', '/');
  argv.push('--chdir', spec.cwd ?? '/tmp');
  if (spec.infoFd !== undefined) argv.push('--info-fd', String(spec.infoFd));
  argv.push('--', spec.command, ...spec.args);
  return argv;
}

/** Whether `p` lies inside a directory already bound (binding it again adds nothing). */
function coveredBy(p: string, binds: ReadonlySet<string>): boolean {
  for (const b of binds) if (p.startsWith(b.endsWith('/') ? b : `${b}/`)) return true;
  return false;
}
