/** Configuration of the `code_execution` host tool. */
import type { RegisteredTool } from '../host/types.ts';
import type { PythonRunnerOptions } from '../runtime/python/index.ts';

export type ScriptLanguage = 'javascript' | 'python';

export interface CodeExecutionOptions {
  /** Languages offered to the model. Default both. */
  languages?: readonly ScriptLanguage[];
  /** Time limit when the model gives none (default 30 s). */
  defaultTimeLimitMs?: number;
  /** Ceiling on `time_limit_ms`; a larger request is capped and the result says so (default 120 s). */
  maxTimeLimitMs?: number;
  /** How long one inner call may take before the host gives up on it (default 60 s). */
  innerCallTimeoutMs?: number;
  /** Extra time past `innerCallTimeoutMs` before the safety timeout ends the call `failed` (default 5 s). */
  innerCallGraceMs?: number;
  /** Which tools scripts may call (and the description lists). Default: every tool but `code_execution`. */
  allowTool?: (tool: RegisteredTool) => boolean;
  /** Warm JavaScript workers kept ready (default 1). */
  jsPoolSize?: number;
  /** Options for each conversation's Python interpreter (`python`, `isolation`, `mounts`, limits). */
  python?: PythonRunnerOptions;
  /**
   * Warm Python interpreters kept at most, one per conversation (default 8, ~24 MB each);
   * past it the least recently used idle conversation's interpreter is ended.
   */
  maxPythonInterpreters?: number;
  /** Cap on the serialized result text handed back to the model (default 64 KiB). */
  maxResultChars?: number;
}

export const DEFAULTS = {
  defaultTimeLimitMs: 30_000,
  maxTimeLimitMs: 120_000,
  innerCallTimeoutMs: 60_000,
  innerCallGraceMs: 5_000,
  maxResultChars: 64 * 1024,
} as const;

/** The tool's name; scripts can never call it. */
export const CODE_EXECUTION = 'code_execution';

/** `_meta` key an inner tool sets on its result to ask for the turn to end. */
export const END_TURN_META_KEY = 'agent-framework/endTurn';
