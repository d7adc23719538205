/**
 * Which cap, if any, a failed Python run ran into: the kernel reports a cap as an ordinary
 * error (MemoryError, EAGAIN from fork, ENOSPC) or as the interpreter's death by SIGXCPU, and a
 * run that ended that way gets a `sandbox` error naming the cap instead. Pure.
 */
import { capMessages, capped, type CheckedCaps } from '../isolation/index.ts';
import type { RunError } from '../types.ts';

/** The caps one interpreter runs under, and what its launch knows about hitting them. */
export interface CapContext {
  caps: CheckedCaps;
  /** Under bubblewrap: the only writable file system is the capped /tmp (and rw grants). */
  bwrap: boolean;
  /** The pids cgroup refused a fork (false where the process cap is an rlimit or absent). */
  refusedFork: boolean;
}

/** Exit code bootstrap.py's SIGXCPU handler exits with (128 + SIGXCPU's number on Linux). */
export const CPU_CAP_EXIT_CODE = 152;

/** The cap behind an uncaught script error, as a `sandbox` error that keeps the script's own. */
export function capErrorOf(error: RunError, ctx: CapContext): RunError | undefined {
  if (error.kind !== 'script') return undefined;
  const sentence = capSentence(error.name ?? '', error.message, ctx);
  if (sentence === undefined) return undefined;
  return { kind: 'sandbox', name: error.name ?? 'Error', message: `${sentence}: ${error.name ?? 'Error'}: ${error.message}`, ...(error.stack ? { stack: error.stack } : {}) };
}

function capSentence(name: string, message: string, ctx: CapContext): string | undefined {
  const { caps } = ctx;
  if (capped(caps.memoryBytes) && (name === 'MemoryError' || /\[Errno 12\]/.test(message))) return capMessages.memory(caps, 'address-space');
  if (capped(caps.processes) && (ctx.refusedFork || /can't start new thread/.test(message) || (name === 'BlockingIOError' && /\[Errno 11\]/.test(message)))) {
    return capMessages.processes(caps);
  }
  if (ctx.bwrap && capped(caps.tmpBytes) && /\[Errno 28\]/.test(message)) return capMessages.tmp(caps);
  return undefined;
}

/** The cap behind the interpreter's death, if its exit says so. */
export function capExitOf(code: number | null, signal: NodeJS.Signals | null, caps: CheckedCaps | undefined): string | undefined {
  if (!caps || !capped(caps.cpuSeconds)) return undefined;
  if (signal === 'SIGXCPU' || code === CPU_CAP_EXIT_CODE) return capMessages.cpu(caps);
  return undefined;
}
