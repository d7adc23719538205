/**
 * Vocabulary of the OS layer: which isolation an operator asks for, which directories a script
 * may see, and the typed error raised when isolation that was required cannot be had.
 */
import path from 'node:path';

/**
 * `auto`: bubblewrap when it is installed and works here, otherwise none (a diagnostic says
 * which was chosen). `bwrap`: bubblewrap or nothing (fails closed). `none`: plain processes.
 */
export type IsolationMode = 'auto' | 'bwrap' | 'none';

/** A host path an operator grants to scripts, read-only or read-write. */
export interface MountGrant {
  /** Absolute host path (a directory or a file); it must exist when the script process starts. */
  path: string;
  mode: 'ro' | 'rw';
  /** Absolute path inside the sandbox; defaults to `path`. */
  target?: string;
}

/** The isolation a script process actually gets. */
export type IsolationPlan = { kind: 'none' } | { kind: 'bwrap'; bwrap: string };

/** Required isolation is unavailable, or a grant cannot be honoured. */
export class IsolationError extends Error {
  override name = 'IsolationError';
}

export const ISOLATION_MODES: readonly IsolationMode[] = ['auto', 'bwrap', 'none'];

/** Sandbox paths a grant may not cover: the sandbox's own /proc and /dev, and the root. */
const RESERVED_TARGETS = ['/', '/proc', '/dev'];

/** Throws a TypeError for a mode that is not one of {@link ISOLATION_MODES}. */
export function checkMode(mode: unknown): IsolationMode {
  if (!ISOLATION_MODES.includes(mode as IsolationMode)) {
    throw new TypeError(`isolation must be one of ${ISOLATION_MODES.map((m) => `'${m}'`).join(', ')}, got ${JSON.stringify(mode)}`);
  }
  return mode as IsolationMode;
}

/**
 * Checks grants' shape (absolute, normalized paths, a known mode, no reserved target) and
 * returns copies with `target` filled in. Existence is checked when the process starts.
 */
export function checkMounts(mounts: readonly MountGrant[]): Required<MountGrant>[] {
  if (!Array.isArray(mounts)) throw new TypeError('mounts must be an array of { path, mode, target? }');
  return mounts.map((m, i) => {
    const where = `mounts[${i}]`;
    if (typeof m !== 'object' || m === null) throw new TypeError(`${where} must be an object`);
    if (m.mode !== 'ro' && m.mode !== 'rw') throw new TypeError(`${where}.mode must be 'ro' or 'rw', got ${JSON.stringify(m.mode)}`);
    const source = absolute(`${where}.path`, m.path);
    const target = m.target === undefined ? source : absolute(`${where}.target`, m.target);
    for (const reserved of RESERVED_TARGETS) {
      if (target === reserved || (reserved !== '/' && target.startsWith(`${reserved}/`))) {
        throw new TypeError(`${where}.target ${JSON.stringify(target)} would cover the sandbox's ${reserved}`);
      }
    }
    return { path: source, mode: m.mode, target };
  });
}

function absolute(what: string, p: unknown): string {
  if (typeof p !== 'string' || !path.isAbsolute(p)) throw new TypeError(`${what} must be an absolute path, got ${JSON.stringify(p)}`);
  if (p.includes('\0')) throw new TypeError(`${what} contains a NUL character`);
  const normal = path.normalize(p);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}
