/**
 * Finds bubblewrap and checks, once per process, that it can actually build a sandbox here:
 * being installed is not enough (user namespaces may be disabled, or a container may forbid
 * mounting /proc, or an old bwrap lacks a flag). The check runs `true` with exactly the command
 * line script processes get, and its answer is cached.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bwrapArgv } from './bwrap-argv.ts';
import { systemLayout } from './system-layout.ts';

/** Whether bubblewrap can sandbox processes here, and if not, why. */
export type BwrapProbe = { ok: true; bwrap: string } | { ok: false; reason: string };

const PROBE_TIMEOUT_MS = 10_000;
const cache = new Map<string, BwrapProbe>();

/** Directories searched after the host's PATH: bwrap is a system package. */
const SYSTEM_BIN = ['/usr/bin', '/bin', '/usr/local/bin'];

/** The bwrap executable on the host's PATH (or the system directories), if any. */
export function findBwrap(searchPath: string | undefined = process.env.PATH): string | undefined {
  return findSystemTool('bwrap', searchPath);
}

/** A Linux system tool (`bwrap`, `prlimit`) on the host's PATH or in the system directories. */
export function findSystemTool(name: string, searchPath: string | undefined = process.env.PATH): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const dirs = [...(searchPath ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d)), ...SYSTEM_BIN];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

/**
 * Tries bubblewrap once (synchronously, a few milliseconds) and caches the answer per
 * executable. `bwrap` defaults to {@link findBwrap}.
 */
export function probeBwrap(bwrap: string | undefined = findBwrap()): BwrapProbe {
  if (process.platform !== 'linux') return { ok: false, reason: `bubblewrap is Linux-only (this is ${process.platform})` };
  if (bwrap === undefined) return { ok: false, reason: 'bwrap (bubblewrap) was not found on PATH' };
  let probe = cache.get(bwrap);
  if (!probe) {
    probe = tryBwrap(bwrap);
    cache.set(bwrap, probe);
  }
  return probe;
}

function tryBwrap(bwrap: string): BwrapProbe {
  const trueBin = ['/usr/bin/true', '/bin/true'].find((p) => fs.existsSync(p));
  if (!trueBin) return { ok: false, reason: 'no `true` executable to probe bubblewrap with' };
  const real = fs.realpathSync(trueBin);
  const args = bwrapArgv({ command: real, args: [], readOnly: [real], system: systemLayout(), mounts: [], env: {}, infoFd: 3 });
  const r = spawnSync(bwrap, args, { env: {}, stdio: ['ignore', 'ignore', 'pipe', 'pipe'], timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' });
  if (r.error) return { ok: false, reason: `${bwrap} could not be run: ${r.error.message}` };
  if (r.status !== 0) {
    const detail = (r.stderr ?? '').trim().split('\n').slice(-2).join(' ');
    return { ok: false, reason: `${bwrap} cannot create a sandbox here (${r.signal ?? `exit code ${r.status}`}${detail ? `: ${detail}` : ''})` };
  }
  return { ok: true, bwrap };
}
