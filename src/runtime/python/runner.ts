import { randomBytes } from 'node:crypto';
import type { RunErrorKind, ToolBinding } from '../types.ts';
import { childEnvironment, validateExtraEnv } from './env.ts';
import { PythonProcess, type ExitInfo } from './process.ts';
import type { PythonRunResult } from './result.ts';
import { RunSession } from './session.ts';
import { buildRunTools, type RunTools } from './tool-table.ts';

export interface PythonRunnerOptions {
  /** Interpreter to run; default `python3`, looked up on the allowlisted `PATH`. */
  python?: string;
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
}

export interface PythonRunOptions {
  /** Tools (`tools.x__run`) and helper globals the script may call. */
  tools: readonly ToolBinding[];
  /** Wall-clock limit; paused while any call holds `pauseClock`. */
  timeoutMs: number;
  /** Aborting stops the run the same way the time limit does, reported as `aborted`. */
  signal?: AbortSignal;
}

export type PythonRunnerState = 'cold' | 'starting' | 'idle' | 'busy' | 'dead';

/** Why `start()` failed: the interpreter could not start (`sandbox`) or startup was cancelled (`aborted`). */
export class PythonRunnerError extends Error {
  override name = 'PythonRunnerError';
  constructor(
    readonly kind: Extract<RunErrorKind, 'sandbox' | 'aborted'>,
    message: string,
  ) {
    super(message);
  }
}

interface Interpreter {
  proc: PythonProcess;
  nonce: string;
  /** Key of the tool table the interpreter holds, to skip resending it. */
  toolKey: string | null;
  /** Ended on purpose while idle, so its exit is not a crash. */
  reclaimed: boolean;
}

interface Startup {
  interp: Interpreter;
  promise: Promise<void>;
  waiters: number;
  fail(err: PythonRunnerError): void;
}

function refusal(kind: RunErrorKind, message: string): PythonRunResult {
  return { ok: false, stdout: '', stderr: '', returnCode: 1, error: { kind, message }, calls: [] };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}

/**
 * One warm `python3` interpreter that runs scripts one at a time; `code_execution` keeps one per
 * conversation. Globals persist between runs until the interpreter is reclaimed (idle timeout,
 * `kill()`, a crash or a kill at the time limit); the next run then starts a fresh one.
 *
 * This is a robustness boundary, not a security sandbox. The script runs as the host's user
 * with full access to the file system, network and subprocesses. What the runner does
 * guarantee: the script's output never corrupts the protocol, the interpreter sees only an
 * allowlisted environment (never the host's secrets), output is capped, runaway scripts are
 * stopped, and a crash or a missing `python3` becomes an error result rather than a rejection.
 */
export class PythonRunner {
  readonly #python: string;
  readonly #env: Record<string, string>;
  readonly #idleTimeoutMs: number;
  readonly #outputCapBytes: number;
  readonly #interruptGraceMs: number;
  readonly #killGraceMs: number;
  readonly #startTimeoutMs: number;
  #interp: Interpreter | null = null;
  #startup: Startup | null = null;
  #session: RunSession | null = null;
  #claimed = false;
  #closed = false;
  #dead = false;
  #idleTimer: NodeJS.Timeout | null = null;
  #runSeq = 0;

  /** Throws a TypeError or RangeError for an option that cannot work. */
  constructor(options: PythonRunnerOptions = {}) {
    this.#python = options.python ?? 'python3';
    if (typeof this.#python !== 'string' || this.#python === '') throw new TypeError('python must be a non-empty string');
    validateExtraEnv(options.env ?? {});
    this.#env = childEnvironment(process.env, options.env);
    this.#idleTimeoutMs = positive('idleTimeoutMs', options.idleTimeoutMs, 10 * 60_000);
    this.#outputCapBytes = Math.floor(positive('outputCapBytes', options.outputCapBytes, 256 * 1024));
    this.#interruptGraceMs = positive('interruptGraceMs', options.interruptGraceMs, 200);
    this.#killGraceMs = positive('killGraceMs', options.killGraceMs, 1000);
    this.#startTimeoutMs = positive('startTimeoutMs', options.startTimeoutMs, 10_000);
  }

  get state(): PythonRunnerState {
    if (this.#closed) return 'dead';
    if (this.#claimed) return 'busy';
    if (this.#startup) return 'starting';
    if (this.#interp) return 'idle';
    return this.#dead ? 'dead' : 'cold';
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
      tools = buildRunTools(options.tools);
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
    const procs = [this.#interp?.proc, this.#startup?.interp.proc].filter((p): p is PythonProcess => p !== undefined);
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
    const session = new RunSession({
      proc: interp.proc,
      runId: ++this.#runSeq,
      nonce: interp.nonce,
      code,
      ...(interp.toolKey === tools.key ? {} : { toolTable: tools.table }),
      bindings: tools.bindings,
      timeoutMs: options.timeoutMs,
      interruptGraceMs: this.#interruptGraceMs,
      killGraceMs: this.#killGraceMs,
      outputCapBytes: this.#outputCapBytes,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    interp.toolKey = tools.key;
    this.#session = session;
    session.begin();
    const result = await session.result;
    if (this.#session === session) this.#session = null;
    interp.proc.setRef(false);
    return result;
  }

  async #ensureStarted(signal?: AbortSignal): Promise<void> {
    if (this.#interp) return;
    const startup = this.#startup ?? this.#launch();
    startup.waiters++;
    try {
      await abortable(startup.promise, signal);
    } catch (e) {
      // The last waiter giving up cancels the startup; otherwise another caller still wants it.
      if (--startup.waiters === 0 && signal?.aborted) startup.fail(new PythonRunnerError('aborted', 'startup was cancelled'));
      throw e;
    }
    startup.waiters--;
  }

  #launch(): Startup {
    let resolve!: () => void;
    let reject!: (err: PythonRunnerError) => void;
    const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    // Waiters observe the rejection; this keeps a startup nobody waits for any more from
    // surfacing as an unhandled rejection.
    promise.catch(() => {});
    const interp: Interpreter = { proc: null as unknown as PythonProcess, nonce: randomBytes(8).toString('hex'), toolKey: null, reclaimed: false };
    const timer = setTimeout(
      () => startup.fail(new PythonRunnerError('sandbox', `the Python interpreter did not start within ${this.#startTimeoutMs} ms`)),
      this.#startTimeoutMs,
    );
    const startup: Startup = {
      interp,
      promise,
      waiters: 0,
      fail: (err) => {
        if (this.#startup !== startup) return;
        clearTimeout(timer);
        this.#startup = null;
        interp.proc.kill();
        reject(err);
      },
    };
    interp.proc = new PythonProcess(
      { python: this.#python, env: this.#env, nonce: interp.nonce, valueCapBytes: this.#outputCapBytes },
      {
        message: (msg) => {
          if (msg.t === 'ready') {
            if (this.#startup !== startup) return;
            clearTimeout(timer);
            this.#startup = null;
            this.#interp = interp;
            this.#dead = false;
            interp.proc.setRef(false);
            resolve();
          } else if (this.#session?.proc === interp.proc) this.#session.onMessage(msg);
        },
        output: (stream, chunk) => {
          if (this.#session?.proc === interp.proc) this.#session.onOutput(stream, chunk);
        },
        exit: (info) => this.#onExit(interp, startup, info),
      },
    );
    this.#startup = startup;
    return startup;
  }

  #onExit(interp: Interpreter, startup: Startup, info: ExitInfo): void {
    if (this.#startup === startup) {
      const detail = info.diagnostics.trim();
      startup.fail(new PythonRunnerError('sandbox', `${info.description} while starting${detail ? `: ${detail}` : ''}`));
      this.#dead = true;
      return;
    }
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
      interp.reclaimed = true;
      this.#interp = null;
      interp.proc.kill();
    }, this.#idleTimeoutMs);
    this.#idleTimer.unref();
  }

  #clearIdle(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new PythonRunnerError('aborted', 'aborted before the interpreter started'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new PythonRunnerError('aborted', 'aborted while the interpreter was starting'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}
