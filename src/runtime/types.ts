/**
 * Types shared by every script runtime (JavaScript sandbox, Python runner) and by
 * `code_execution`, which binds host dispatch to them. A runtime knows nothing about the
 * tool host: it only sees {@link ToolBinding}s.
 */

/** Context handed to a binding for one call made by a script. */
export interface ToolCallContext {
  /**
   * Aborted when the runtime gives up on the call (script returned, timed out, was
   * aborted). A binding may ignore it: `code_execution` does, because an inner tool that
   * was already dispatched must finish and report its own terminal.
   */
  signal: AbortSignal;
  /**
   * Stops the script's wall-clock limit until the returned function is called. For waits
   * that must not count against a script, such as a human approving a call.
   */
  pauseClock(): () => void;
  /**
   * Where in the script the call was made (1-based line, column when known); only when the
   * run asked for call sites (`callSites`), which costs a stack capture per call.
   */
  site?: { line: number; column?: number };
  /**
   * The run's `scope` option, as given: per-run state for bindings shared by many runs (a
   * `ToolCatalog`, src/runtime/catalog.ts), which hold no state of their own.
   */
  scope?: unknown;
}

/** One capability injected into a script: a tool (recorded in `calls`) or a helper global (not recorded). */
export interface ToolBinding {
  /** Name as the host presents it, e.g. `x--run`; scripts also reach it by its sanitized identifier. */
  name: string;
  description?: string;
  /**
   * `tool` (default) is recorded in `calls`; `global` is a top-level helper function, not
   * recorded. A dotted name (`models.list`) is a namespace path: scripts call
   * `models.list(...)` (a global) or `tools.models.list(...)` (a tool).
   */
  kind?: 'tool' | 'global';
  /** Overrides the generated signature in the description; see {@link ToolSignature}. */
  signature?: ToolSignature;
  /**
   * Globals only: the longest string argument the host reads. The sandbox cuts a longer string
   * argument (or string property of an object argument) to this many characters before the
   * call leaves the script's engine, so a script's megabyte name or query costs the host's
   * thread no copy or parse. A positive integer; unset, arguments cross whole. JavaScript
   * engines only (a Python script's helpers answer from the interpreter's own copy).
   */
  maxArgumentChars?: number;
  /**
   * Performs the call. Resolves with a JSON-serializable value. Rejecting with an `Error`
   * makes the script see an error with the same `name` and `message` (a tool's error result
   * is surfaced as name `ToolError`).
   */
  invoke(args: unknown, ctx: ToolCallContext): Promise<unknown>;
}

/**
 * A hand-written signature, the text that follows the function's name. One binding carries
 * one per language, since the two describe the same call in different syntax:
 * `typescript: '(args: { q: string }): Promise<Model[]>'`,
 * `python: '(args: dict) -> list[dict]'`. A plain string is the TypeScript one.
 */
export type ToolSignature = string | { typescript?: string; python?: string };

/** Status of one call a script made, in start order. */
export type CallStatus = 'ok' | 'error' | 'cancelled';

export interface CallSummary {
  name: string;
  status: CallStatus;
  durationMs: number;
}

/** Why a run failed. */
export type RunErrorKind = 'script' | 'timeout' | 'aborted' | 'sandbox';

export interface RunError {
  kind: RunErrorKind;
  name?: string;
  message: string;
  stack?: string;
}

export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

export interface LogEntry {
  level: LogLevel;
  message: string;
}

/** Whether a run started in a fresh session (no binding of an earlier run of its conversation). */
/** A kind of value the script returned that JSON would lose, given its documented form (JavaScript: js/guest/guest-core.js `faithful`; Python: python/bootstrap.py). */
export interface Conversion {
  /** What the script returned: `Map`, `Set`, `BigInt`, `NaN`, `Infinity`, `Error`, `<Class> instance`. */
  kind: string;
  /** The JSON form it was given. */
  as: string;
  count: number;
}

/**
 * Receives a script's output while it runs: each console line (`level` its method) and each
 * `print` line (`stdout`; Python: `stdout`/`stderr` text as it arrives). For live display only:
 * the result carries the same output, bounded, when the run ends.
 */
export type OutputListener = (stream: LogLevel | 'stdout' | 'stderr', text: string) => void;

export interface SessionInfo {
  fresh: boolean;
}
