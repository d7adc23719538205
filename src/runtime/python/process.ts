import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { ScriptProcess, selectIsolation, type CheckedCaps, type DiagnosticSink, type IsolationMode, type LaunchRequest, type MountGrant } from '../isolation/index.ts';
import { capExitOf, type CapContext } from './cap-errors.ts';
import { resolveInterpreter } from './interpreter.ts';
import { parseInbound, type InboundMessage } from './protocol.ts';
import type { StreamName } from './output.ts';

const BOOTSTRAP = fileURLToPath(new URL('./bootstrap.py', import.meta.url));
/** Protocol lines beyond this are treated as a broken interpreter rather than buffered forever. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
/** How much of the interpreter's stderr is kept for explaining a failed start or a crash. */
const DIAGNOSTIC_BYTES = 4096;
/** After exit, how long to wait for the pipes to drain when a grandchild holds them open. */
const DRAIN_AFTER_EXIT_MS = 100;
const SETTLED = Promise.resolve();

export interface LaunchOptions {
  python: string;
  /** The environment without isolation: allowlisted host variables, fixed ones, `extraEnv`. */
  env: Record<string, string>;
  /** The operator's own variables, which win over the sandbox's defaults too. */
  extraEnv: Record<string, string>;
  isolation: IsolationMode;
  mounts: readonly Required<MountGrant>[];
  onDiagnostic?: DiagnosticSink;
  bwrapPath?: string;
  valueCapBytes: number;
  /** Caps on the interpreter (memory as address space, processes, CPU time, /tmp). */
  caps: CheckedCaps;
}

/** Why the interpreter is gone. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** One sentence for an error message, e.g. `python3 was killed by SIGSEGV`. */
  description: string;
  /** The tail of the interpreter's stderr. */
  diagnostics: string;
}

export interface ProcessHandlers {
  message(msg: InboundMessage): void;
  output(stream: StreamName, chunk: Buffer): void;
  exit(info: ExitInfo): void;
}

type Refable = { ref?(): void; unref?(): void };

/** The launch request for `python` under the chosen isolation, or why there is none. */
async function prepare(options: LaunchOptions, signal: AbortSignal): Promise<LaunchRequest | { description: string; diagnostics: string }> {
  const interp = await resolveInterpreter(options.python, options.env, signal);
  if ('description' in interp) return interp;
  let isolation;
  try {
    isolation = selectIsolation(options.isolation, {
      ...(options.onDiagnostic ? { onDiagnostic: options.onDiagnostic } : {}),
      ...(options.bwrapPath !== undefined ? { bwrapPath: options.bwrapPath } : {}),
    });
  } catch (e) {
    return { description: (e as Error).message, diagnostics: '' };
  }
  const args = ['-I', '-X', 'utf8', BOOTSTRAP, String(options.valueCapBytes)];
  const stdio = ['pipe', 'pipe', 'pipe', 'pipe'] as const;
  const capped = { caps: options.caps, memory: 'address-space' as const, ...(options.onDiagnostic ? { onDiagnostic: options.onDiagnostic } : {}) };
  if (isolation.kind === 'none') {
    // Own process group, so a group kill also reaches what the script started.
    return { isolation, command: interp.executable, args, readOnly: [], env: options.env, stdio, detached: true, ...capped };
  }
  // Inside the sandbox only /tmp is writable and the host's home and PATH do not exist.
  const env = { ...options.env, PATH: path.dirname(interp.executable), HOME: '/tmp', TMPDIR: '/tmp', ...options.extraEnv };
  return {
    isolation,
    command: interp.executable,
    args,
    readOnly: [...interp.paths, path.dirname(BOOTSTRAP)],
    mounts: options.mounts,
    env,
    stdio,
    detached: true,
    ...capped,
  };
}

/**
 * One `python3` child running bootstrap.py: resolving and isolating it, line framing, signals.
 * It knows nothing about runs; the runner interprets what it reports. `exit` is reported
 * exactly once, including for an interpreter that never started (not found, isolation
 * unavailable) or was killed before it did.
 */
export class PythonProcess {
  #proc: ScriptProcess | null = null;
  readonly #handlers: ProcessHandlers;
  #lineBuf = '';
  #diagnostics = Buffer.alloc(0);
  #exited = false;
  #reported = false;
  #killed = false;
  #ref = true;
  #spawnError: Error | null = null;
  #violation: string | null = null;
  #outq: string[] = [];
  /** Aborted by kill(): a start still resolving its interpreter gives up at once. */
  readonly #starting = new AbortController();
  #markExited!: (info: ExitInfo) => void;
  /** Settles once the process is gone (after `exit` was reported). */
  readonly exited = new Promise<ExitInfo>((resolve) => (this.#markExited = resolve));

  constructor(options: LaunchOptions, handlers: ProcessHandlers) {
    this.#handlers = handlers;
    prepare(options, this.#starting.signal).then(
      (request) => this.#spawn(request),
      (err: unknown) => this.#reportFailure(`the Python interpreter could not be prepared: ${(err as Error).message}`, ''),
    );
  }

  #spawn(request: LaunchRequest | { description: string; diagnostics: string }): void {
    if ('description' in request) return this.#reportFailure(request.description, request.diagnostics);
    if (this.#killed) return this.#reportFailure('the Python interpreter was killed before it started', '', 'SIGKILL');
    let proc: ScriptProcess;
    try {
      proc = new ScriptProcess(request);
    } catch (e) {
      return this.#reportFailure((e as Error).message, '');
    }
    this.#proc = proc;
    const child = proc.child;
    const [stdin, stdout, stderr, scriptOut] = child.stdio as unknown as [Writable, Readable, Readable, Readable];
    // Writes after the child died fail with EPIPE; the exit event reports the death itself.
    stdin.on('error', () => {});
    stdout.setEncoding('utf8');
    stdout.on('data', (text: string) => this.#onProtocol(text));
    stderr.on('data', (chunk: Buffer) => {
      this.#keepDiagnostics(chunk);
      this.#handlers.output('stderr', chunk);
    });
    scriptOut.on('data', (chunk: Buffer) => this.#handlers.output('stdout', chunk));
    child.on('error', (err) => {
      this.#spawnError ??= err;
      if (child.pid === undefined) this.#report(null, null);
    });
    child.on('exit', (code, signal) => {
      this.#exited = true;
      const timer = setTimeout(() => this.#report(code, signal), DRAIN_AFTER_EXIT_MS);
      child.once('close', () => {
        clearTimeout(timer);
        this.#report(code, signal);
      });
    });
    if (!this.#ref) this.setRef(false);
    if (this.#outq.length > 0) void SETTLED.then(this.#flush);
  }

  /** The caps it runs under and whether its pids cgroup refused a fork (null before it started). */
  capContext(): CapContext | null {
    const proc = this.#proc;
    if (!proc?.caps) return null;
    return { caps: proc.caps, bwrap: proc.isolation.kind === 'bwrap', refusedFork: proc.refusedFork };
  }

  /** Host pid of the interpreter (not of bwrap), once it is known. */
  get pid(): number | undefined {
    return this.#proc?.innerPid;
  }

  get alive(): boolean {
    return !this.#exited && !this.#reported;
  }

  /** Queues a protocol line; lines queued in the same turn of the event loop go out in one write. */
  send(line: string): void {
    if (!this.alive) return;
    if (this.#outq.push(line) === 1) void SETTLED.then(this.#flush); // not queueMicrotask: Node makes an async resource per callback
  }

  #flush = (): void => {
    if (!this.#proc) return; // sent once spawned
    const data = this.#outq.length === 1 ? this.#outq[0]! : this.#outq.join('');
    this.#outq = [];
    if (this.alive && this.#proc) this.#proc.child.stdin!.write(data);
  };

  /** SIGINT to the interpreter only; bootstrap.py turns it into KeyboardInterrupt in the script. */
  interrupt(): void {
    if (this.alive) this.#proc?.signal('SIGINT');
  }

  /** SIGKILL to the interpreter and every process it started (its namespace, or its process tree). */
  kill(): void {
    if (this.#reported) return;
    this.#killed = true;
    // Not spawned yet (its interpreter still being probed): the start gives up now, and the
    // exit is reported as soon as prepare() returns, not when a hanging probe would time out.
    this.#starting.abort();
    this.#proc?.killAll();
  }

  /** The interpreter said something no honest interpreter says: it is killed and the exit names why. */
  breach(violation: string): void {
    this.#fail(violation);
  }

  /** Closes the protocol input; bootstrap.py exits on end of input once it is idle. */
  endInput(): void {
    this.#proc?.child.stdin!.end();
  }

  /** Whether this process keeps the Node event loop alive. Off while idle, so a warm interpreter never holds the host open. */
  setRef(on: boolean): void {
    this.#ref = on;
    const child = this.#proc?.child;
    if (!child) return;
    // Only the four protocol and output pipes: bwrap's pid report pipe is closed by now, and
    // unref() on a closed socket queues a listener each time.
    const targets: Refable[] = [child, ...(child.stdio.slice(0, 4) as unknown as Refable[])];
    for (const target of targets) (on ? target?.ref : target?.unref)?.call(target);
  }

  #onProtocol(text: string): void {
    let start = 0;
    let nl = text.indexOf('\n');
    if (nl < 0) {
      this.#lineBuf += text;
      if (this.#lineBuf.length > MAX_LINE_CHARS) this.#fail(`a protocol message exceeded ${MAX_LINE_CHARS} characters`);
      return;
    }
    while (nl >= 0) {
      const line = this.#lineBuf + text.slice(start, nl);
      this.#lineBuf = '';
      start = nl + 1;
      if (line) {
        const msg = parseInbound(line);
        if (typeof msg === 'string') return this.#fail(msg);
        this.#handlers.message(msg);
        if (this.#violation) return;
      }
      nl = text.indexOf('\n', start);
    }
    this.#lineBuf = text.slice(start);
  }

  #fail(violation: string): void {
    this.#violation ??= violation;
    this.kill();
  }

  #keepDiagnostics(chunk: Buffer): void {
    const joined = Buffer.concat([this.#diagnostics, chunk]);
    this.#diagnostics = joined.length > DIAGNOSTIC_BYTES ? Buffer.from(joined.subarray(joined.length - DIAGNOSTIC_BYTES)) : joined;
  }

  #report(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#reported) return;
    // bwrap exits with 128 + n when the interpreter inside was killed by signal n.
    if (this.#proc?.isolation.kind === 'bwrap' && signal === null && code !== null && code > 128) {
      const name = Object.entries(os.constants.signals).find(([, n]) => n === code - 128)?.[0];
      if (name) signal = name as NodeJS.Signals;
    }
    this.#reported = true;
    this.#exited = true;
    for (const stream of this.#proc?.child.stdio ?? []) stream?.destroy();
    const info = { code, signal, description: this.#describe(code, signal), diagnostics: this.#diagnostics.toString('utf8') };
    this.#handlers.exit(info);
    this.#markExited(info);
  }

  /** The interpreter never started: reported like an exit, with the reason as its description. */
  #reportFailure(description: string, diagnostics: string, signal: NodeJS.Signals | null = null): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#exited = true;
    const info = { code: null, signal, description, diagnostics };
    this.#handlers.exit(info);
    this.#markExited(info);
  }

  #describe(code: number | null, signal: NodeJS.Signals | null): string {
    const exe = this.#proc?.child.spawnfile;
    const err = this.#spawnError as NodeJS.ErrnoException | null;
    if (err?.code === 'ENOENT') return `the Python interpreter ${JSON.stringify(exe)} was not found (install Python 3.8+ or set the \`python\` option)`;
    if (err && this.#proc?.child.pid === undefined) return `the Python interpreter ${JSON.stringify(exe)} could not be started: ${err.message}`;
    if (this.#violation) return `the Python interpreter broke the runner protocol (${this.#violation}) and was killed`;
    const cap = this.#killed ? undefined : capExitOf(code, signal, this.#proc?.caps);
    if (cap) return cap;
    if (signal) return `the Python interpreter was killed by ${signal}`;
    return `the Python interpreter exited with code ${code}`;
  }
}
