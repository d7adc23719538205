import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { parseInbound, type InboundMessage } from './protocol.ts';
import type { StreamName } from './output.ts';

const BOOTSTRAP = fileURLToPath(new URL('./bootstrap.py', import.meta.url));
/** Protocol lines beyond this are treated as a broken interpreter rather than buffered forever. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
/** How much of the interpreter's stderr is kept for explaining a failed start or a crash. */
const DIAGNOSTIC_BYTES = 4096;
/** After exit, how long to wait for the pipes to drain when a grandchild holds them open. */
const DRAIN_AFTER_EXIT_MS = 100;

export interface LaunchOptions {
  python: string;
  env: Record<string, string>;
  nonce: string;
  valueCapBytes: number;
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

/**
 * One `python3` child running bootstrap.py: spawning, line framing, signals. It knows nothing
 * about runs; the runner interprets what it reports. `exit` is reported exactly once, including
 * for a spawn that failed (`python3` not found).
 */
export class PythonProcess {
  readonly #child: ChildProcess;
  readonly #handlers: ProcessHandlers;
  #lineBuf = '';
  #diagnostics = Buffer.alloc(0);
  #exited = false;
  #reported = false;
  #spawnError: Error | null = null;
  #violation: string | null = null;
  #outq: string[] = [];
  #markExited!: (info: ExitInfo) => void;
  /** Settles once the process is gone (after `exit` was reported). */
  readonly exited = new Promise<ExitInfo>((resolve) => (this.#markExited = resolve));

  constructor(options: LaunchOptions, handlers: ProcessHandlers) {
    this.#handlers = handlers;
    this.#child = spawn(options.python, ['-I', '-X', 'utf8', BOOTSTRAP, options.nonce, String(options.valueCapBytes)], {
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      env: options.env,
      // Own process group, so killing the interpreter also ends subprocesses the script left behind.
      detached: true,
    });
    const [stdin, stdout, stderr, scriptOut] = this.#child.stdio as unknown as [Writable, Readable, Readable, Readable];
    // Writes after the child died fail with EPIPE; the exit event reports the death itself.
    stdin.on('error', () => {});
    stdout.setEncoding('utf8');
    stdout.on('data', (text: string) => this.#onProtocol(text));
    stderr.on('data', (chunk: Buffer) => {
      this.#keepDiagnostics(chunk);
      handlers.output('stderr', chunk);
    });
    scriptOut.on('data', (chunk: Buffer) => handlers.output('stdout', chunk));
    this.#child.on('error', (err) => {
      this.#spawnError ??= err;
      if (this.#child.pid === undefined) this.#report(null, null);
    });
    this.#child.on('exit', (code, signal) => {
      this.#exited = true;
      const timer = setTimeout(() => this.#report(code, signal), DRAIN_AFTER_EXIT_MS);
      this.#child.once('close', () => {
        clearTimeout(timer);
        this.#report(code, signal);
      });
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get alive(): boolean {
    return !this.#exited && !this.#reported;
  }

  /** Queues a protocol line; lines queued in the same turn of the event loop go out in one write. */
  send(line: string): void {
    if (!this.alive) return;
    if (this.#outq.push(line) === 1) queueMicrotask(this.#flush);
  }

  #flush = (): void => {
    const data = this.#outq.length === 1 ? this.#outq[0]! : this.#outq.join('');
    this.#outq = [];
    if (this.alive) this.#child.stdin!.write(data);
  };

  /** SIGINT to the interpreter only; bootstrap.py turns it into KeyboardInterrupt in the script. */
  interrupt(): void {
    if (this.alive) this.#child.kill('SIGINT');
  }

  /** SIGKILL to the interpreter's whole process group. */
  kill(): void {
    const pid = this.#child.pid;
    if (pid === undefined || this.#reported) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // The group is already gone (ESRCH); the interpreter itself may still need the signal.
      this.#child.kill('SIGKILL');
    }
  }

  /** Closes the protocol input; bootstrap.py exits on end of input once it is idle. */
  endInput(): void {
    this.#child.stdin!.end();
  }

  /** Whether this process keeps the Node event loop alive. Off while idle, so a warm interpreter never holds the host open. */
  setRef(on: boolean): void {
    const targets: Refable[] = [this.#child, ...(this.#child.stdio as unknown as Refable[])];
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
    this.#reported = true;
    this.#exited = true;
    for (const stream of this.#child.stdio) stream?.destroy();
    const info = { code, signal, description: this.#describe(code, signal), diagnostics: this.#diagnostics.toString('utf8') };
    this.#handlers.exit(info);
    this.#markExited(info);
  }

  #describe(code: number | null, signal: NodeJS.Signals | null): string {
    const exe = this.#child.spawnfile;
    const err = this.#spawnError as NodeJS.ErrnoException | null;
    if (err?.code === 'ENOENT') return `the Python interpreter ${JSON.stringify(exe)} was not found (install Python 3.8+ or set the \`python\` option)`;
    if (err && this.#child.pid === undefined) return `the Python interpreter ${JSON.stringify(exe)} could not be started: ${err.message}`;
    if (this.#violation) return `the Python interpreter broke the runner protocol (${this.#violation}) and was killed`;
    if (signal) return `the Python interpreter was killed by ${signal}`;
    return `the Python interpreter exited with code ${code}`;
  }
}
