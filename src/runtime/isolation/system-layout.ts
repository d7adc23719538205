/**
 * Reads where this host keeps shared libraries, so the sandbox can offer exactly those
 * (read-only) and nothing else of /usr, /etc or /home. Merged-/usr systems have /lib as a
 * symlink into /usr; older ones have real directories; both are reproduced as found.
 */
import fs from 'node:fs';
import type { SystemLayout } from './bwrap-argv.ts';

/** Library directories dynamic executables load from. */
const LIBRARY_DIRS = ['/lib', '/lib32', '/lib64', '/libx32', '/usr/lib', '/usr/lib32', '/usr/lib64', '/usr/libx32', '/usr/local/lib'];
/** Files the dynamic loader and the C library read; none carries anything secret. */
const SYSTEM_FILES = ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/localtime', '/usr/share/zoneinfo'];

let cached: SystemLayout | undefined;

/** The host's layout, read once per process. */
export function systemLayout(): SystemLayout {
  cached ??= readLayout();
  return cached;
}

function readLayout(): SystemLayout {
  const binds: string[] = [];
  const symlinks: [string, string][] = [];
  for (const p of [...LIBRARY_DIRS, ...SYSTEM_FILES]) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(p);
    } catch {
      continue; // not on this host
    }
    if (stat.isSymbolicLink()) symlinks.push([p, fs.readlinkSync(p)]);
    else binds.push(p);
  }
  return { binds, symlinks };
}
