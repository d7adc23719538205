/** Configuration of the `code_execution` host tool. */
import { DEFAULT_DESCRIPTION_CHARS } from './description.ts';
import type { IsolationMode, ScriptCaps } from '../runtime/isolation/index.ts';
import type { RegisteredTool } from '../host/types.ts';
import type { JsEngine, JsPoolOptions } from '../runtime/js/index.ts';
import type { PythonRunnerOptions } from '../runtime/python/index.ts';
import type { WhenBusy } from './conversation-lock.ts';
import type { ResultPagesLimits } from './result-pages.ts';
import type { DurableRuns } from './durable-runs.ts';

export type ScriptLanguage = 'javascript' | 'python';

/** Options of {@link registerCodeExecution} (defaults in docs/configuration.md). */
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
  /**
   * Which tools scripts may call (and the description lists). Default: every tool but
   * `code_execution`. Asked once per registered tool and kept until that tool changes (a change
   * of the tool set looks only at the changed tools), so its answer should depend on the tool alone.
   */
  allowTool?: (tool: RegisteredTool) => boolean;
  /**
   * JavaScript engine: `quickjs` (default; QuickJS in WebAssembly, sharing no object with the
   * host, one VM per conversation) or `v8` (V8 `vm` contexts, one process per conversation;
   * for trusted script authors only).
   */
  engine?: JsEngine;
  /** Bounds of the JavaScript sandbox processes (cap, queue, idle reclaim). */
  jsPool?: JsPoolOptions;
  /**
   * QuickJS engine: run the VMs on worker threads of the host, one running VM per thread, so a
   * busy or hung conversation holds only its own thread. Default true, unless `isolation` is
   * `'bwrap'` (the OS layer: the VMs then live in bubblewrap'd sandbox processes); `false`
   * selects those processes. On threads the WebAssembly VM is the boundary. See
   * src/runtime/js/README.md, "Where QuickJS VMs live".
   */
  jsThreads?: boolean;
  /**
   * Removed: guest code never runs on the host's event loop (QuickJS runs on worker threads or
   * in sandbox processes). `false` is accepted and changes nothing; `true` is a TypeError.
   */
  jsInline?: boolean;
  /** V8 engine: warm JavaScript sandbox processes kept ready (default 1). */
  jsPoolSize?: number;
  /**
   * The OS layer around every script process, JavaScript and Python (src/runtime/isolation):
   * `auto` (default) uses bubblewrap when it works here, `bwrap` fails closed without it,
   * `none` runs scripts as plain processes. `python.isolation` overrides it for Python.
   * QuickJS runs on worker threads of the host unless this is `bwrap` (or `jsThreads` is
   * false): threads have no OS layer, the WebAssembly VM is their boundary.
   */
  isolation?: IsolationMode;
  /**
   * How long a conversation's session (its JavaScript VM, its Python interpreter and the
   * bindings they hold) is kept without a run before it is reclaimed; the next run then starts
   * fresh and says so. Sets `jsPool.idleVmMs` and `python.idleTimeoutMs` unless those are given.
   * Default: theirs (5 and 10 minutes).
   */
  sessionIdleMs?: number;
  /**
   * Kernel-enforced caps on each Python interpreter and everything it starts: `memoryBytes`
   * (address space, default 1 GiB), `processes` (processes and threads at once, default 64),
   * `cpuSeconds` (CPU over the interpreter's life, default 600), `tmpBytes` (its private /tmp
   * under bubblewrap, default 64 MiB); `Infinity` lifts one. A run that hits one ends with a
   * `sandbox` error naming it. `python.caps` wins over this. The same caps apply to each
   * JavaScript sandbox process (JsRuntimeOptions.caps), over that engine's own defaults for
   * what is left out; QuickJS on threads has no process to cap (docs/security.md, "Caps").
   */
  caps?: ScriptCaps;
  /** Options for each conversation's Python interpreter (`python`, `isolation`, `mounts`, limits). */
  python?: PythonRunnerOptions;
  /**
   * Warm Python interpreters kept at most, one per conversation (default 8, ~24 MB each);
   * past it the least recently used idle conversation's interpreter is ended.
   */
  maxPythonInterpreters?: number;
  /**
   * Largest `code` accepted, in UTF-8 bytes (default 256 KiB: `DEFAULT_MAX_CODE_BYTES`). A larger
   * script is refused before any work is done on it, with an `invalid_request` message naming
   * this limit; nothing runs.
   */
  maxCodeBytes?: number;
  /** Cap on the serialized result text handed back to the model (default 64 KiB). */
  maxResultChars?: number;
  /**
   * A value cut to fit `maxResultChars` is kept whole, for its conversation only, and the model
   * reads it page by page with the `result_page` tool (docs/script-results.md). Bounds default to
   * 24 MiB per conversation, 96 MiB in all, 10 minutes per value (result-pages.ts); narrow them
   * here, or `false` to keep nothing and not register `result_page`.
   */
  resultPages?: false | Partial<ResultPagesLimits>;
  /**
   * Cap on the content a script returns as content blocks (images, audio, resources, text;
   * docs/script-results.md): decoded bytes of media and blobs plus UTF-8 bytes of text. Past
   * it the run fails with a `ContentError` (default 4 MiB). Content is not counted in
   * `maxResultChars`.
   */
  maxContentBytes?: number;
  /**
   * When another execution's call is still open in the same conversation: `'refuse'` this one
   * at once with a clear result (default), or `'wait'` its turn (first come, first served),
   * cancelled by this call's signal and given up after {@link busyWaitMs}. Either way, an
   * execution whose call has already ended (aborted, timed out) is waited for while its
   * script stops, never a reason to refuse.
   */
  whenBusy?: WhenBusy;
  /** Longest wait for the conversation before the execution is not run (default 30 s). */
  busyWaitMs?: number;
  /**
   * Most tool calls one execution may open (default 200). The call past it is refused at the
   * host's refusal site (`execution_budget`: no lifecycle event) and the script sees a clear
   * error; calls also count against the host's per-inference budget. `Infinity` lifts it.
   */
  maxCallsPerExecution?: number;
  /**
   * Longest description, in characters (default 24,000, measured on the official servers:
   * see `DEFAULT_DESCRIPTION_CHARS`). When the full declarations would make it longer, as many
   * tools as fit keep their declarations and the rest get a one-line summary (all of them
   * when not even one declaration fits); scripts read full declarations with
   * `await describe('name')` and find tools with `await searchTools('query')`.
   */
  maxDescriptionChars?: number;
  /** `wait_ms` of a background run (and of `action: "wait"`) when the model gives none (default 10 s). */
  defaultWaitMs?: number;
  /** Ceiling on `wait_ms`; a larger request is lowered to it (default 60 s). */
  maxWaitMs?: number;
  /** Background scripts running at once on this host; past it a background run is refused (default 16). */
  maxBackgroundScripts?: number;
  /** How long a finished background script's result is kept before it is dropped as expired (default 10 min). */
  backgroundResultMs?: number;
  /**
   * With a store (`durable`): how long a running background script's row stays valid unless this
   * host renews it (every third of it); past it other hosts report the script lost. Default
   * `SCRIPT_LEASE_MS` (30 s, src/store/bounds.ts).
   */
  backgroundLeaseMs?: number;
  /**
   * Durable runs (docs/durable.md): each run keeps a journal of its inner calls in memory, so
   * that a run paused for a person can be stored and resumed by replay, on this host or
   * another one sharing the store. Without it (the default) nothing is recorded.
   */
  durable?: DurableRuns;
}

export const DEFAULTS = {
  defaultTimeLimitMs: 30_000,
  maxTimeLimitMs: 120_000,
  innerCallTimeoutMs: 60_000,
  innerCallGraceMs: 5_000,
  maxResultChars: 64 * 1024,
  busyWaitMs: 30_000,
  maxCallsPerExecution: 200,
  maxDescriptionChars: DEFAULT_DESCRIPTION_CHARS,
} as const;

/** The tool's name; scripts can never call it. */
export const CODE_EXECUTION = 'code_execution';

/** `_meta` key an inner tool sets on its result to ask for the turn to end. */
export const END_TURN_META_KEY = 'agent-framework/endTurn';
