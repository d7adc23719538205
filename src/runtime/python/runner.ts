import type { DurableReads } from '../durable-reads.ts';
import { checkCaps, checkMode, checkMounts, PYTHON_CAPS, type CheckedCaps, type DiagnosticSink, type IsolationMode, type MountGrant, type ScriptCaps } from '../isolation/index.ts';
import type { OutputListener, RunErrorKind, ToolBinding } from '../types.ts';
import { childEnvironment, validateExtraEnv } from './env.ts';
import type { ExitInfo, PythonProcess } from './process.ts';
import type { PythonRunResult } from './result.ts';
import { RunSession } from './session.ts';
import { PythonRunnerError, Startup, type Interpreter } from './startup.ts';
import { buildRunTools, type RunTools } from './tool-table.ts';
import { PerCatalog, type ToolCatalog } from '../catalog.ts';

export { PythonRunnerError } from './startup.ts';

export interface PythonRunnerOptions {
  /**
   * Interpreter to run; default `python3`, looked up on the allowlisted `PATH` once per
   * process: its `sys.executable` is what every start then runs (a version-manager shim is
   * paid for once).
   */
  python?: string;
  /**
   * The OS layer (src/runtime/isolation): `auto` (default) runs the interpreter under
   * bubblewrap when it works here and says which was chosen through `onDiagnostic`; `bwrap`
   * requires it (runs fail with a `sandbox` error otherwise); `none` runs it as a plain process
   * with the host user's rights.
   */
  isolation?: IsolationMode;
  /** Host paths scripts may see under bubblewrap, read-only or read-write. Ignored with `none`. */
  mounts?: readonly MountGrant[];
  /** The bwrap executable; default: found on `PATH` (or /usr/bin). */
  bwrapPath?: string;
  /** One sentence per distinct event worth an operator's attention, e.g. which isolation `auto` chose. */
  onDiagnostic?: DiagnosticSink;
  /** Called when the idle timeout ends the interpreter, so an owner can drop the runner. */
  onIdleReclaimed?: () => void;
  /** Extra environment variables for the interpreter, on top of the allowlist. */
  env?: Record<string, string>;
  /** An interpreter idle this long is ended; the next run starts a fresh one. Default 10 minutes. */
  idleTimeoutMs?: number;
  /** Cap on one run's stdout + stderr bytes (and on its value's JSON). Default 256 KiB. */
  outputCapBytes?: number;
  /** After the time limit, how long a cancel at the next await gets before SIGINT. Default 200 ms. */
  interruptGraceMs?: number;
  /** After SIGINT, how long before the interpreter is killed. Default 1000 ms. */
  killGraceMs?: number;
  /** How long the interpreter may take to start and report ready. Default 10 s. */
  startTimeoutMs?: number;
  /**
   * Kernel-enforced caps on the interpreter and what it starts (see docs/security.md, "Caps"):
   * `memoryBytes` (address space, default 1 GiB), `processes` (tasks at once, default 64),
   * `cpuSeconds` (over the interpreter's life, default 600), `tmpBytes` (the private /tmp under
   * bubblewrap, default 64 MiB). `Infinity` lifts one. A run that hits one ends with a `sandbox`
   * error naming it.
   */
  caps?: ScriptCaps;
}

export interface PythonRunOptions {
  /**
   * Tools (`tools.x__run`) and helper globals the script may call. A {@link ToolCatalog} given
   * to many runs has its table built once; the interpreter is sent a table only when it differs
   * from the one it holds.
   */
  tools: readonly ToolBinding[] | ToolCatalog;
  /** Handed to every binding this run calls as `ctx.scope` (per-run state for shared bindings). */
  scope?: unknown;
  /** Wall-clock limit; paused while any call holds `pauseClock`. */
  timeoutMs: number;
  /** Aborting stops the run the same way the time limit does, reported as `aborted`. */
  signal?: AbortSignal;
  /** Report where in the script each call was made (`ToolCallContext.site`); costs a frame walk per call. */
  callSites?: boolean;
  /** Told the script's stdout and stderr text as it arrives, while it runs. */
  onOutput?: OutputListener;
  /** A durable run: its seed and journaled clock reads, and where new reads go (docs/durable.md). */
  durable?: DurableReads;
}

export type PythonRunnerState = 'cold' | 'starting' | 'idle' | 'busy' | 'dead';

function refusal(kind: RunErrorKind, message: string): PythonRunResult {
  return { ok: false, stdout: '', stderr: '', returnCode: 1, error: { kind, message }, calls: [] };
}

/** Node timers cannot wait longer (about 24.8 days); a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0) || value > MAX_TIMER_MS) {
    throw new RangeError(`${name} must be a positive number of at most ${MAX_TIMER_MS}, got ${value}`);
  }
  return value;
}

/**
 * One warm `python3` interpreter that runs scripts one at a time; `code_execution` keeps one per
 * conversation. Globals persist between runs until the interpreter is reclaimed (idle timeout,
 * `kill()`, a crash or a kill at the time limit); the next run then starts a fresh one.
 *
 * Under bubblewrap (`isolation`) the interpreter is sandboxed: no network, no view of the
 * host's processes, a read-only file system with only the interpreter and the operator's
 * grants, a private /tmp. Without it (`none`, or macOS) this is a robustness boundary, not a
 * security sandbox: the script runs as the host's user with full access to the file system,
 * network and subprocesses. Either way the runner guarantees: the script's output never
 * corrupts the protocol and never reaches another run, a forged completion is caught, every
 * process a run started is killed when it ends, the interpreter sees only an allowlisted
 * environment, output is capped, runaway scripts are stopped, and a crash or a missing
 * `python3` becomes an error result rather than a rejection.
 */
export class PythonRunner {
  readonly #python: string;
  readonly #env: Record<string, string>;
  readonly #extraEnv: Record<string, string>;
  readonly #isolation: IsolationMode;
  readonly #mounts: Required<MountGrant>[];
  readonly #onDiagnostic: DiagnosticSink | undefined;
  readonly #bwrapPath: string | undefined;
  readonly #onIdleReclaimed: (() => void) | undefined;
  readonly #idleTimeoutMs: number;
  readonly #outputCapBytes: number;
  readonly #interruptGraceMs: number;
  readonly #killGraceMs: number;
  readonly #startTimeoutMs: number;
  readonly #caps: CheckedCaps;
  #interp: Interpreter | null = null;
  #startup: Startup | null = null;
  #session: RunSession | null = null;
  #claimed = false;
  #closed = false;
  #dead = false;
  #idleTimer: NodeJS.Timeout | null = null;
  #runSeq = 0;
  #tables = new PerCatalog<RunTools>((bindings) => buildRunTools(bindings));
  #tablesSent = 0;
  /** The interpreter the last run used: a run in another one starts with fresh globals. */
  #lastInterp: Interpreter | null = null;

  /** Throws a TypeError or RangeError for an option that cannot work. */
  constructor(options: PythonRunnerOptions = {}) {
    this.#python = options.python ?? 'python3';
    if (typeof this.#python !== 'string' || this.#python === '') throw new TypeError('python must be a non-empty string');
    validateExtraEnv(options.env ?? {});
    this.#env = childEnvironment(process.env, options.env);
    this.#extraEnv = { ...options.env };
    this.#isolation = checkMode(options.isolation ?? 'auto');
    this.#mounts = checkMounts(options.mounts ?? []);
    this.#onDiagnostic = options.onDiagnostic;
    this.#bwrapPath = options.bwrapPath;
    this.#onIdleReclaimed = options.onIdleReclaimed;
    this.#idleTimeoutMs = positive('idleTimeoutMs', options.idleTimeoutMs, 10 * 60_000);
    this.#outputCapBytes = Math.max(1, Math.floor(positive('outputCapBytes', options.outputCapBytes, 256 * 1024)));
    this.#interruptGraceMs = positive('interruptGraceMs', options.interruptGraceMs, 200);
    this.#killGraceMs = positive('killGraceMs', options.killGraceMs, 1000);
    this.#startTimeoutMs = positive('startTimeoutMs', options.startTimeoutMs, 10_000);
    this.#caps = checkCaps(options.caps, PYTHON_CAPS);
  }

  get state(): PythonRunnerState {
    if (this.#closed) return 'dead';
    if (this.#claimed) return 'busy';
    if (this.#startup && !this.#startup.settled) return 'starting';
    if (this.#interp) return 'idle';
    return this.#dead ? 'dead' : 'cold';
  }

  /** Runs whose message carried the tool table: the interpreter did not hold that table yet. */
  get toolTablesSent(): number {
    return this.#tablesSent;
  }

  /**
   * Host pid of the running interpreter (under bubblewrap the interpreter's own, not bwrap's;
   * inside its namespace it is pid 1), or undefined while there is none.
   */
  get pid(): number | undefined {
    return this.#interp?.proc.pid;
  }

  /**
   * Starts the interpreter and waits for its handshake; resolves at once if it is running.
   * Rejects with a {@link PythonRunnerError}: `sandbox` when it cannot start, `aborted` when
   * `signal` fires first (startup is then cancelled unless a run is also waiting for it).
   */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new PythonRunnerError('sandbox', 'the runner is closed');
    await this.#ensureStarted(signal);
    if (!this.#claimed) this.#armIdle();
  }

  /**
   * Runs `code` as top-level-await-capable Python in the interpreter's persistent globals.
   * Claims the runner synchronously: a second call before the first settles is refused with a
   * `sandbox` error result. Never rejects except for invalid arguments (a TypeError/RangeError).
   */
  run(code: string, options: PythonRunOptions): Promise<PythonRunResult> {
    if (typeof code !== 'string') return Promise.reject(new TypeError('code must be a string'));
    let tools: RunTools;
    try {
      positive('timeoutMs', options?.timeoutMs ?? Number.NaN, 0);
      tools = this.#tables.get(options.tools);
    } catch (e) {
      return Promise.reject(e);
    }
    if (this.#closed) return Promise.resolve(refusal('sandbox', 'the runner is closed'));
    if (this.#claimed) return Promise.resolve(refusal('sandbox', 'the runner is busy with another run; it runs one script at a time'));
    this.#claimed = true;
    this.#clearIdle();
    return this.#execute(code, tools, options).finally(() => {
      this.#claimed = false;
      this.#armIdle();
    });
  }

  /** Kills the interpreter now. A run in progress ends as `aborted`; the next run starts fresh. */
  kill(): void {
    this.#clearIdle();
    this.#startup?.fail(new PythonRunnerError('aborted', 'the runner was killed while the interpreter was starting'));
    this.#startup = null;
    const interp = this.#interp;
    if (!interp) return;
    this.#interp = null;
    this.#dead = true;
    if (this.#session?.proc === interp.proc) this.#session.terminate();
    interp.proc.kill();
  }

  /** Kills the interpreter and refuses further runs; resolves once the process has exited. */
  async close(): Promise<void> {
    this.#closed = true;
    const starting = this.#startup?.settled === false ? this.#startup.interp.proc : undefined;
    const procs = [this.#interp?.proc, starting].filter((p): p is PythonProcess => p !== undefined);
    // An idle interpreter does not hold the event loop; waiting for its exit must.
    for (const p of procs) p.setRef(true);
    this.kill();
    await Promise.all(procs.map((p) => p.exited));
  }

  async #execute(code: string, tools: RunTools, options: PythonRunOptions): Promise<PythonRunResult> {
    if (options.signal?.aborted) return refusal('aborted', 'the run was aborted before it started');
    try {
      await this.#ensureStarted(options.signal);
    } catch (e) {
      return refusal(e instanceof PythonRunnerError ? e.kind : 'sandbox', (e as Error).message);
    }
    const interp = this.#interp;
    if (!interp) return refusal('sandbox', 'the Python interpreter exited right after starting');
    interp.proc.setRef(true);
    const sendTable = interp.toolKey !== tools.key;
    if (sendTable) this.#tablesSent++;
    const session = new RunSession({
      proc: interp.proc,
      runId: ++this.#runSeq,
      code,
      ...(sendTable ? { toolTable: tools.table } : {}),
      scope: options.scope,
      bindings: tools.bindings,
      timeoutMs: options.timeoutMs,
      interruptGraceMs: this.#interruptGraceMs,
      killGraceMs: this.#killGraceMs,
      outputCapBytes: this.#outputCapBytes,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.callSites ? { callSites: true } : {}),
      ...(options.onOutput ? { onOutput: options.onOutput } : {}),
      ...(options.durable ? { durable: options.durable } : {}),
    });
    interp.toolKey = tools.key;
    const fresh = this.#lastInterp !== interp;
    this.#lastInterp = interp;
    this.#session = session;
    session.begin();
    const result = await session.result;
    result.session = { fresh };
    if (this.#session === session) this.#session = null;
    // close() refs the process until it has exited; a run it ended must not undo that.
    if (!this.#closed) interp.proc.setRef(false);
    if (session.stray > 0 && this.#interp === interp) {
      // A thread still running could act, or write output, during a later run: end it with its interpreter.
      this.#retire(interp);
      const note = `toolcell: the script left ${session.stray} thread(s) running; the interpreter was restarted so they cannot reach a later run (globals are reset)\n`;
      return { ...result, stderr: result.stderr + note };
    }
    return result;
  }

  async #ensureStarted(signal?: AbortSignal): Promise<void> {
    if (this.#interp) return;
    if (!this.#startup || this.#startup.settled) this.#startup = this.#launch();
    await this.#startup.join(signal);
  }

  #launch(): Startup {
    const startup: Startup = new Startup(
      {
        python: this.#python,
        env: this.#env,
        extraEnv: this.#extraEnv,
        isolation: this.#isolation,
        mounts: this.#mounts,
        ...(this.#onDiagnostic ? { onDiagnostic: this.#onDiagnostic } : {}),
        ...(this.#bwrapPath !== undefined ? { bwrapPath: this.#bwrapPath } : {}),
        valueCapBytes: this.#outputCapBytes,
        caps: this.#caps,
        startTimeoutMs: this.#startTimeoutMs,
      },
      {
        message: (msg) => {
          if (msg.t === 'ready') {
            if (startup.settled) return;
            this.#interp = startup.interp;
            this.#dead = false;
            startup.interp.proc.setRef(false);
            startup.succeed();
          } else if (this.#session?.proc === startup.interp.proc) this.#session.onMessage(msg);
        },
        output: (stream, chunk) => {
          if (this.#session?.proc === startup.interp.proc) this.#session.onOutput(stream, chunk);
        },
        exit: (info) => this.#onExit(startup, info),
      },
    );
    return startup;
  }

  #onExit(startup: Startup, info: ExitInfo): void {
    if (!startup.settled) {
      const detail = info.diagnostics.trim();
      startup.fail(new PythonRunnerError('sandbox', `${info.description} while starting${detail ? `: ${detail}` : ''}`));
      this.#dead = true;
      return;
    }
    const interp = startup.interp;
    if (this.#interp === interp) {
      this.#interp = null;
      if (!interp.reclaimed) this.#dead = true;
    }
    if (this.#session?.proc === interp.proc) this.#session.onExit(info);
  }

  #armIdle(): void {
    this.#clearIdle();
    if (!this.#interp || this.#claimed || this.#closed) return;
    const interp = this.#interp;
    this.#idleTimer = setTimeout(() => {
      if (this.#interp !== interp || this.#claimed) return;
      this.#retire(interp);
      this.#onIdleReclaimed?.();
    }, this.#idleTimeoutMs);
    this.#idleTimer.unref();
  }

  /** Ends an idle interpreter on purpose (not a crash); the next run starts a fresh one. */
  #retire(interp: Interpreter): void {
    interp.reclaimed = true;
    if (this.#interp === interp) this.#interp = null;
    interp.proc.kill();
  }

  #clearIdle(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }
}
