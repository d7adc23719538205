/**
 * The newline-delimited JSON spoken between the runner and bootstrap.py. Every message that
 * belongs to a run carries its run id, and every tool call its call id, so a message for a run
 * that has ended is recognisable and can be dropped instead of reaching a later run. Each run
 * also carries a fresh random token that its `done` frame must repeat: a script that writes a
 * `done` of its own onto the protocol pipe without it is caught (the interpreter is replaced).
 */

/** How a run ended, as the interpreter saw it. */
export type RunOutcome = 'ok' | 'error' | 'exit' | 'cancelled' | 'interrupted';

export interface ScriptErrorInfo {
  name: string;
  message: string;
  stack?: string;
}

/** Messages the interpreter sends. */
export type InboundMessage =
  | { t: 'ready'; version: string; pid: number }
  /** `line`/`col`: where in the script the call was made, sent only for runs that asked for call sites. */
  | { t: 'call'; run: number; id: number; name: string; args: unknown; line?: number; col?: number; clock?: unknown }
  | {
      t: 'done';
      run: number;
      token: string;
      /** Threads the script left running; the runner then replaces the interpreter. */
      stray?: number;
      outcome: RunOutcome;
      returnCode: number;
      value?: unknown;
      valueTruncated?: boolean;
      /** Values given their documented JSON forms (json_forms.py). */
      converted?: unknown;
      error?: ScriptErrorInfo;
    };

/** The tool table sent with a run when it differs from the previous run's. */
export interface ToolTable {
  /** Host names of recorded tools, reachable as `tools["name"]`. */
  names: string[];
  /** Script identifier (dotted for `tools.a.b`) → host name, for `tools.identifier`. */
  aliases: Record<string, string>;
  /** Identifiers claimed by several tools, which a script must spell out by name. */
  collisions: Record<string, string[]>;
  /** Global helper identifier (dotted for a namespaced global) → host name. */
  helpers: Record<string, string>;
  /**
   * Helper identifier → ToolBinding.maxArgumentChars: the interpreter cuts a longer string
   * argument (or string value of a dict argument) before the call crosses to the host.
   */
  cuts?: Record<string, number>;
}

const OUTCOMES = new Set<RunOutcome>(['ok', 'error', 'exit', 'cancelled', 'interrupted']);

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

function isErrorInfo(v: unknown): v is ScriptErrorInfo {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  return typeof e.name === 'string' && typeof e.message === 'string' && (e.stack === undefined || typeof e.stack === 'string');
}

/**
 * Parses one line from the interpreter. Returns a string describing the violation when the
 * line is not a well-formed message; the caller treats that as a broken interpreter.
 */
export function parseInbound(line: string): InboundMessage | string {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return `not JSON (${(e as Error).message}): ${line.slice(0, 200)}`;
  }
  if (typeof msg !== 'object' || msg === null) return `not an object: ${line.slice(0, 200)}`;
  const m = msg as Record<string, unknown>;
  switch (m.t) {
    case 'ready':
      if (typeof m.version === 'string' && isInt(m.pid)) return m as InboundMessage;
      break;
    case 'call':
      if (isInt(m.run) && isInt(m.id) && typeof m.name === 'string' && (m.line === undefined || isInt(m.line)) && (m.col === undefined || isInt(m.col))) {
        return m as InboundMessage;
      }
      break;
    case 'done':
      if (
        isInt(m.run) &&
        typeof m.token === 'string' &&
        (m.stray === undefined || isInt(m.stray)) &&
        OUTCOMES.has(m.outcome as RunOutcome) &&
        isInt(m.returnCode) &&
        (m.error === undefined || isErrorInfo(m.error))
      ) {
        return m as InboundMessage;
      }
      break;
  }
  return `malformed message: ${line.slice(0, 200)}`;
}

export function encodeRun(run: number, token: string, code: string, tools?: ToolTable, callSites = false, durable?: { seed: number[]; clock: number[] }): string {
  const dur = durable ? { dur: { seed: durable.seed, clock: durable.clock } } : {};
  return `${JSON.stringify({ t: 'run', run, token, code, ...(tools ? { tools } : {}), ...(callSites ? { sites: true } : {}), ...dur })}\n`;
}

export function encodeCancel(run: number): string {
  return `{"t":"cancel","run":${run}}\n`;
}

/**
 * A tool call's outcome. A value JSON cannot carry (a BigInt, a cycle) becomes an error the
 * script can see, rather than a broken line.
 */
export function encodeResult(
  run: number,
  id: number,
  outcome: { ok: true; value: unknown } | { ok: false; error: { name: string; message: string } },
): { line: string; ok: boolean } {
  if (outcome.ok) {
    try {
      const value = JSON.stringify(outcome.value);
      const body = value === undefined ? '' : `,"value":${value}`;
      return { line: `{"t":"result","run":${run},"id":${id},"ok":true${body}}\n`, ok: true };
    } catch (e) {
      outcome = { ok: false, error: { name: 'TypeError', message: `tool result is not JSON-serializable: ${(e as Error).message}` } };
    }
  }
  const error = JSON.stringify({ name: outcome.error.name, message: outcome.error.message });
  return { line: `{"t":"result","run":${run},"id":${id},"ok":false,"error":${error}}\n`, ok: false };
}
