/**
 * Messages between the host and a sandbox process (src/runtime/js/engines/v8, engines/quickjs). Everything the
 * sandbox process sends is validated here before the host acts on it: a process that sends
 * anything else has a broken bridge and is killed.
 */
import type { LogLevel, RunError } from '../types.ts';
import type { JsLimits } from './limits.ts';
import { PARK_BLOCK } from './engines/quickjs/memory-image.mjs';

/** A call the script made: `args` is its JSON text (`''` for no argument). */
export interface ChildCall {
  id: number;
  global: boolean;
  name: string;
  args: string;
  /** Where the script made the call (runs that asked for call sites), when the engine found it. */
  site?: { line: number; column?: number };
}

export type ChildMessage =
  | { t: 'ready' }
  | { t: 'out'; run: number; calls: ChildCall[]; logs: OutLine[] }
  | ({ t: 'done'; run: number; ok: true; json: string } & DoneSession)
  | ({ t: 'done'; run: number; ok: false; error: RunError } & DoneSession)
  | { t: 'idle'; run: number; slots?: number }
  | { t: 'parked'; conv: string; session: ParkedSession | null }
  | { t: 'fatal'; message: string };

/**
 * QuickJS on threads: a conversation's kept VM taken off its thread (a memory image of the
 * WebAssembly instance, without its all-zero blocks, and where its runtime lives in it), held by
 * the host until the conversation's next run restores it on whichever thread is free.
 */
export interface ParkedSession {
  /** Bytes of the VM's linear memory. */
  size: number;
  /** Indexes of the PARK_BLOCK-byte blocks kept, ascending; the others are all zero. */
  blocks: Int32Array;
  /** The kept blocks, in order. */
  data: Uint8Array;
  stackPointer: number;
  runtimePtr: number;
  contextPtr: number;
  /** The catalog whose bindings the VM holds installed. */
  catalog: number | null;
}

/** Largest VM memory accepted: WebAssembly's 32-bit address space. */
const MAX_PARKED_BYTES = 2 ** 32;

function parseParked(session: unknown): ParkedSession | null | InvalidMessage {
  if (session === undefined) return null;
  if (!isRecord(session)) return invalid('parked session is not an object');
  const { size, blocks, data, stackPointer, runtimePtr, contextPtr, catalog } = session;
  if (!Number.isSafeInteger(size) || (size as number) <= 0 || (size as number) > MAX_PARKED_BYTES || (size as number) % PARK_BLOCK !== 0) {
    return invalid('parked session with a malformed size');
  }
  if (!(blocks instanceof Int32Array) || !(data instanceof Uint8Array) || data.byteLength !== blocks.length * PARK_BLOCK) {
    return invalid('parked session without a memory image');
  }
  for (let i = 0, last = -1; i < blocks.length; last = blocks[i]!, i++) {
    if (blocks[i]! <= last || blocks[i]! >= (size as number) / PARK_BLOCK) return invalid('parked session with a block outside its memory');
  }
  const within = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) < (size as number);
  if (!within(stackPointer) || !within(runtimePtr) || !within(contextPtr)) return invalid('parked session with a pointer outside its memory');
  if (catalog !== null && !Number.isSafeInteger(catalog)) return invalid('parked session with a malformed catalog');
  return {
    size: size as number, blocks, data,
    stackPointer: stackPointer as number, runtimePtr: runtimePtr as number, contextPtr: contextPtr as number, catalog: catalog as number | null,
  };
}

/** A console line, or (level `stdout`) a line the script print()ed. */
export interface OutLine {
  /** `clock`: a durable run's clock reads since its last call, a JSON array (not output). */
  level: LogLevel | 'stdout' | 'clock';
  message: string;
}

/**
 * QuickJS: whether the run started on a fresh VM, and whether its VM was kept as the
 * conversation's session. Absent from the V8 engine, whose runs are always fresh.
 */
export interface DoneSession {
  fresh?: boolean;
  kept?: boolean;
  /** QuickJS: the VM installed the run's bindings (it did not hold that catalog's already). */
  bound?: boolean;
  /** QuickJS, with `kept`: bytes of the kept VM's WebAssembly memory (the host's session budget counts them). */
  mem?: number;
}

/** Why a frame from a sandbox process was rejected. */
export interface InvalidMessage {
  t: 'invalid';
  reason: string;
}

/** Call sites cross as line * SITE_LINE + column (both preludes encode them so). */
const SITE_LINE = 1048576;

const LEVELS: ReadonlySet<string> = new Set<LogLevel | 'stdout'>(['log', 'info', 'warn', 'error', 'debug', 'stdout']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRunId(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

const invalid = (reason: string): InvalidMessage => ({ t: 'invalid', reason });

/**
 * Validates one decoded frame from a sandbox process (or thread). `attachment`: what a thread's
 * message carried beyond header and payloads (only a `parked` session may).
 */
export function parseChildMessage(header: unknown, payloads: readonly string[], attachment?: unknown): ChildMessage | InvalidMessage {
  if (!isRecord(header)) return invalid('frame header is not an object');
  if (attachment !== undefined && header.t !== 'parked') return invalid(`${String(header.t)} carries an attachment`);
  switch (header.t) {
    case 'parked': {
      if (typeof header.conv !== 'string' || header.conv === '' || payloads.length !== 0) return invalid('malformed parked message');
      const session = parseParked(attachment);
      return session !== null && 't' in session ? session : { t: 'parked', conv: header.conv, session };
    }
    case 'ready':
      return payloads.length === 0 ? { t: 'ready' } : invalid('ready carries payloads');
    case 'idle': {
      if (!isRunId(header.run)) return invalid('idle without a run id');
      // QuickJS: how many conversation slots the process holds (monitoring, tests).
      const { slots } = header;
      if (slots === undefined) return { t: 'idle', run: header.run };
      return Number.isSafeInteger(slots) && (slots as number) >= 0 ? { t: 'idle', run: header.run, slots: slots as number } : invalid('idle with malformed slots');
    }
    case 'fatal':
      return typeof header.message === 'string'
        ? { t: 'fatal', message: header.message }
        : invalid('fatal without a message');
    case 'out':
      return parseOut(header, payloads);
    case 'done':
      return parseDone(header, payloads);
    default:
      return invalid(`unknown message type ${JSON.stringify(header.t)}`);
  }
}

function parseOut(header: Record<string, unknown>, payloads: readonly string[]): ChildMessage | InvalidMessage {
  const { run, c, l, s } = header;
  if (!isRunId(run)) return invalid('out without a run id');
  if (!Array.isArray(c) || c.length % 3 !== 0) return invalid('out has a malformed call list');
  if (!Array.isArray(l)) return invalid('out has a malformed log list');
  const callCount = c.length / 3;
  if (payloads.length !== callCount + l.length) return invalid('out has the wrong number of payloads');
  // `s`: encoded call sites (line * 2^20 + column, 0 unknown), one per call, for runs that asked.
  if (s !== undefined && (!Array.isArray(s) || s.length !== callCount || !s.every((v) => Number.isSafeInteger(v) && v >= 0))) {
    return invalid('out has a malformed call-site list');
  }
  const calls: ChildCall[] = new Array(callCount);
  for (let i = 0; i < callCount; i++) {
    const id = c[3 * i];
    const global = c[3 * i + 1];
    const name = c[3 * i + 2];
    if (!isRunId(id) || (global !== 0 && global !== 1) || typeof name !== 'string') {
      return invalid(`out has a malformed call at position ${i}`);
    }
    calls[i] = { id, global: global === 1, name, args: payloads[i]! };
  }
  if (s !== undefined) {
    for (let i = 0; i < callCount; i++) {
      const site = (s as number[])[i]!;
      if (site < SITE_LINE) continue;
      const column = site % SITE_LINE;
      calls[i]!.site = { line: Math.floor(site / SITE_LINE), ...(column > 0 ? { column } : {}) };
    }
  }
  const logs: OutLine[] = new Array(l.length);
  for (let i = 0; i < l.length; i++) {
    const level = l[i];
    if (typeof level !== 'string' || (!LEVELS.has(level) && level !== 'clock')) return invalid(`out has an unknown log level at position ${i}`);
    logs[i] = { level: level as OutLine['level'], message: payloads[callCount + i]! };
  }
  return { t: 'out', run, calls, logs };
}

function parseDone(header: Record<string, unknown>, payloads: readonly string[]): ChildMessage | InvalidMessage {
  const { run, ok, error, fresh, kept, bound, mem } = header;
  if (!isRunId(run)) return invalid('done without a run id');
  if ([fresh, kept, bound].some((flag) => flag !== undefined && typeof flag !== 'boolean')) {
    return invalid('done with a malformed session');
  }
  if (mem !== undefined && !(Number.isSafeInteger(mem) && (mem as number) >= 0)) return invalid('done with a malformed memory size');
  const session: DoneSession = {};
  if (fresh !== undefined) session.fresh = fresh as boolean;
  if (kept !== undefined) session.kept = kept as boolean;
  if (bound !== undefined) session.bound = bound as boolean;
  if (mem !== undefined) session.mem = mem as number;
  if (ok === true) {
    return payloads.length === 1 ? { t: 'done', run, ok: true, json: payloads[0]!, ...session } : invalid('done without a value');
  }
  if (ok !== false || !isRecord(error)) return invalid('done without an outcome');
  const { kind, name, message, stack } = error;
  // `timeout`: a QuickJS process interrupted the script at the deadline the host gave it.
  if (kind !== 'script' && kind !== 'sandbox' && kind !== 'timeout') return invalid('done with an unknown error kind');
  if (typeof message !== 'string') return invalid('done error without a message');
  if (name !== undefined && typeof name !== 'string') return invalid('done error with a malformed name');
  if (stack !== undefined && typeof stack !== 'string') return invalid('done error with a malformed stack');
  const out: RunError = { kind, message };
  if (name !== undefined) out.name = name;
  if (stack !== undefined) out.stack = stack;
  return { t: 'done', run, ok: false, error: out, ...session };
}

/**
 * Limits the sandbox process enforces itself, so over-limit data never crosses the pipe and
 * the script gets its error at the call. The host checks the same limits again on every frame
 * (session.ts) and does not rely on a sandbox process to do so.
 */
export type ChildLimits = Pick<
  JsLimits,
  'maxCalls' | 'maxInFlight' | 'maxArgsBytes' | 'maxInFlightBytes' | 'maxLogBytes' | 'maxLogEntries' | 'maxDepth' | 'maxReturnBytes'
>;

/**
 * Header of the frame that starts a run; payloads are `[code, bindingConfig]`. The session adds
 * `cat` (the catalog id of the binding config; the config is then left out when the process
 * already holds it), `forget` (catalog ids it may drop) and `sites` (report call sites).
 */
export function runHeader(run: number, limits: JsLimits): { t: 'run'; run: number; limits: ChildLimits } {
  const { maxCalls, maxInFlight, maxArgsBytes, maxInFlightBytes, maxLogBytes, maxLogEntries, maxDepth, maxReturnBytes } = limits;
  return {
    t: 'run',
    run,
    limits: { maxCalls, maxInFlight, maxArgsBytes, maxInFlightBytes, maxLogBytes, maxLogEntries, maxDepth, maxReturnBytes },
  };
}

/** What a sandbox's host side does with one parsed message (see {@link routeChildMessage}). */
export type ChildRoute =
  | { do: 'break'; reason: string }
  | { do: 'ready' }
  | { do: 'deliver'; message: ChildMessage };

/**
 * The order every sandbox (a process behind a pipe, or a worker thread) must keep: exactly one
 * `ready` first; then `fatal` ends it; anything else goes to the run listening, and a message
 * while no run listens is a broken bridge. `who` names the sandbox in the reasons.
 */
export function routeChildMessage(
  message: ChildMessage | InvalidMessage,
  state: { ready: boolean; listening: boolean },
  who: string,
): ChildRoute {
  if (message.t === 'invalid') return { do: 'break', reason: message.reason };
  if (message.t === 'ready') return state.ready ? { do: 'break', reason: `the ${who} announced itself twice` } : { do: 'ready' };
  if (!state.ready) return { do: 'break', reason: `${message.t} before ready` };
  if (message.t === 'fatal') return { do: 'break', reason: `the ${who} failed: ${message.message}` };
  if (!state.listening) return { do: 'break', reason: `unexpected ${message.t} while idle` };
  return { do: 'deliver', message };
}
