/**
 * Caps on one script process, as pure decisions: the operator's options checked and filled with
 * defaults, the `prlimit` arguments that set them, and the words a run's error names each one
 * with. Enforcement (prlimit at spawn, a pids cgroup, bubblewrap's tmpfs size) is launch.ts's.
 */

/**
 * What one script process may use. A cap of `Infinity` lifts it. Each is enforced by the
 * kernel, so a script cannot talk its way past it (see docs/security.md, "Caps").
 */
export interface ScriptCaps {
  /**
   * Memory, in bytes. Python: its address space (RLIMIT_AS, which counts every mapping, shared
   * ones included). JavaScript sandbox processes: their writable private memory (RLIMIT_DATA),
   * because Node reserves far more address space than it uses.
   */
  memoryBytes?: number;
  /**
   * Tasks (processes and threads) the process and everything it starts may hold at once. A pids
   * cgroup where one can be created (root, or a delegated hierarchy); otherwise RLIMIT_NPROC
   * inside bubblewrap's user namespace, where it counts only that sandbox's tasks.
   */
  processes?: number;
  /**
   * CPU seconds over the process's whole life (RLIMIT_CPU): a Python interpreter lives as long
   * as its conversation's session, so this bounds a session, not one run. Each process it
   * starts has a counter of its own, so the total is bounded by `processes` × this.
   */
  cpuSeconds?: number;
  /** Size of the private `/tmp` (a RAM-backed tmpfs) under bubblewrap, in bytes. */
  tmpBytes?: number;
}

/** Caps as applied: every one present, `Infinity` where lifted. */
export type CheckedCaps = Required<ScriptCaps>;

/** How a process's memory is counted (see {@link ScriptCaps.memoryBytes}). */
export type MemoryMeasure = 'address-space' | 'data';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** Defaults for a Python interpreter. */
export const PYTHON_CAPS: CheckedCaps = { memoryBytes: 1 * GiB, processes: 64, cpuSeconds: 600, tmpBytes: 64 * MiB };

/**
 * Defaults for a JavaScript sandbox process. No CPU cap: a process serves many runs (QuickJS
 * pools serve many conversations at once), each stopped by its own time limit inside the
 * process, and a lifetime cap would end bystanders' runs with it.
 */
export const JS_PROCESS_CAPS: CheckedCaps = { memoryBytes: 2 * GiB, processes: 64, cpuSeconds: Infinity, tmpBytes: 64 * MiB };

/** Smallest memory cap: below it no interpreter starts, and the error would name the wrong cause. */
const MIN_MEMORY_BYTES = 64 * MiB;

/** Checks `caps` (a TypeError names the bad key) and fills what is left out from `defaults`. */
export function checkCaps(caps: ScriptCaps | undefined, defaults: CheckedCaps): CheckedCaps {
  if (caps === undefined) return { ...defaults };
  if (typeof caps !== 'object' || caps === null) throw new TypeError(`caps must be an object of { memoryBytes?, processes?, cpuSeconds?, tmpBytes? }, got ${JSON.stringify(caps)}`);
  const known = new Set(Object.keys(defaults));
  for (const key of Object.keys(caps)) {
    if (!known.has(key)) throw new TypeError(`caps.${key} is not a cap; caps are ${[...known].join(', ')}`);
  }
  const out = { ...defaults };
  for (const key of Object.keys(defaults) as (keyof CheckedCaps)[]) {
    const value = caps[key];
    if (value === undefined) continue;
    const min = key === 'memoryBytes' ? MIN_MEMORY_BYTES : 1;
    if (typeof value !== 'number' || Number.isNaN(value) || value < min || (value !== Infinity && !Number.isSafeInteger(value))) {
      throw new TypeError(`caps.${key} must be a whole number of at least ${min}, or Infinity to lift it, got ${JSON.stringify(value)}`);
    }
    out[key] = value;
  }
  return out;
}

/** Whether `value` caps anything. */
export function capped(value: number): boolean {
  return value !== Infinity;
}

/**
 * `prlimit` options for the rlimits among `caps`. The CPU cap's hard limit is one second past
 * its soft one: SIGXCPU first (a handler may report it), then SIGKILL, which nothing ignores
 * (a pid namespace's init ignores SIGXCPU when it has no handler).
 */
export function prlimitOptions(caps: CheckedCaps, memory: MemoryMeasure, nproc: boolean): string[] {
  const out: string[] = [];
  if (capped(caps.memoryBytes)) out.push(`--${memory === 'address-space' ? 'as' : 'data'}=${caps.memoryBytes}`);
  if (capped(caps.cpuSeconds)) out.push(`--cpu=${caps.cpuSeconds}:${caps.cpuSeconds + 1}`);
  if (nproc && capped(caps.processes)) out.push(`--nproc=${caps.processes}`);
  return out;
}

/** `1 GiB`, `64 MiB`, `1536 KiB`: bytes in the largest unit that keeps them whole. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [['GiB', GiB], ['MiB', MiB], ['KiB', 1024]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** The sentences a run's `sandbox` error uses for each cap. */
export const capMessages = {
  memory: (caps: CheckedCaps, memory: MemoryMeasure) =>
    `the script exceeded its memory cap (${memory === 'address-space' ? 'address space' : 'data'} ${formatBytes(caps.memoryBytes)})`,
  processes: (caps: CheckedCaps) => `the script reached its process cap (${caps.processes} processes and threads at once)`,
  cpu: (caps: CheckedCaps) => `the script exceeded its CPU time cap (${caps.cpuSeconds} s of CPU for its process)`,
  tmp: (caps: CheckedCaps) => `/tmp is full (limit ${formatBytes(caps.tmpBytes)})`,
};

/** What the host can use to enforce caps on one process. */
export interface CapMeans {
  memory: MemoryMeasure;
  /** Under bubblewrap (its own user namespace, its own tmpfs /tmp). */
  bwrap: boolean;
  /** The host runs as uid 0, which RLIMIT_NPROC never applies to. */
  root: boolean;
  /** A pids cgroup can be made for the process. */
  cgroup: boolean;
  /** `prlimit` was found. */
  prlimit: boolean;
}

/** How each cap is enforced for one process, and a sentence for each that cannot be. */
export interface CapPlan {
  /** prlimit options; empty when there is nothing to set or no prlimit. */
  rlimits: string[];
  /** The process cap is a pids cgroup. */
  pidsCgroup: boolean;
  unenforced: string[];
}

/** Decides how `caps` are enforced with the `means` at hand. */
export function planCaps(caps: CheckedCaps, means: CapMeans): CapPlan {
  const unenforced: string[] = [];
  let nproc = false;
  let pidsCgroup = false;
  if (capped(caps.processes)) {
    if (means.cgroup) pidsCgroup = true;
    else if (means.bwrap && !means.root) nproc = true;
    else if (means.root) unenforced.push('the process cap is not enforced: the kernel never applies RLIMIT_NPROC to root, and no pids cgroup could be created here');
    else unenforced.push("the process cap is not enforced: without bubblewrap's user namespace RLIMIT_NPROC would count all of this user's processes, and no pids cgroup could be created here");
  }
  let rlimits = prlimitOptions(caps, means.memory, nproc);
  if (rlimits.length > 0 && !means.prlimit) {
    unenforced.push('the memory, CPU time and process caps are not enforced: prlimit (util-linux) was not found');
    rlimits = [];
  }
  return { rlimits, pidsCgroup, unenforced };
}
