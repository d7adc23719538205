/**
 * The host's handle on one sandbox process (src/runtime/js/engines/v8/main.mjs or engines/quickjs/main.mjs).
 *
 * Scripts run in a child process rather than a worker thread because V8 aborts the whole
 * process when an isolate cannot satisfy an allocation: `new Array(1e9).fill(0)` or a growing
 * object in a worker with `resourceLimits` takes the host down with it. A child process dies
 * alone. It starts with an empty environment, Node's permission model (read access to its own
 * files only, no writes, no child processes), code generation from strings disabled
 * and wasm unexposed, so even a script that escaped its context would hold very little.
 *
 * Frames travel over two pipes. After each write the host rings a doorbell (a shared file the
 * child polls for a moment before sleeping in read(2)) and keeps its own event loop from
 * sleeping for a moment: thread wake-ups cost more than a tool call itself on small machines.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { encodeFrame, FrameDecoder } from './sandbox/frames.mjs';
import { cancelSlot, PROCESS_BOARD_SLOTS } from './sandbox/board.mjs';
import { JS_PROCESS_CAPS, capMessages, checkCaps, spawnIsolated, type CheckedCaps, type IsolationMode, type ScriptCaps } from '../isolation/index.ts';
import { SandboxLife, type ProcessListener } from './sandbox-life.ts';
import { HeldCatalogs } from './held-catalogs.ts';

const DEFAULT_ENTRY = fileURLToPath(new URL('./engines/v8/main.mjs', import.meta.url));
const QUICKJS_ENTRY = fileURLToPath(new URL('./engines/quickjs/main.mjs', import.meta.url));
/** Directories every sandbox process reads: the code shared by both engines' processes and the guest code. */
const SHARED_DIRS = [
  fileURLToPath(new URL('./sandbox/', import.meta.url)),
  fileURLToPath(new URL('./guest/', import.meta.url)),
].map((dir) => path.resolve(dir));
/** Node heap of a QuickJS sandbox process: frames and strings only; script memory is the VMs'. */
const QUICKJS_NODE_HEAP_MB = 256;
/** How long the host keeps its event loop awake after writing, expecting a quick answer. */
const HOT_MS = 0.2;
/** Largest frame a sandbox process may send; its own limits keep real frames far below. */
const MAX_FRAME_BYTES = 1 << 30;
const STDERR_KEEP = 8 * 1024;
/** How long the output of an exited process may still drain before its streams are dropped. */
const EXIT_DRAIN_MS = 250;
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';

export type { ProcessEnd, ProcessListener } from './sandbox-life.ts';

export interface SandboxProcessOptions {
  /**
   * `v8` (default): one run at a time in vm contexts (engines/v8/main.mjs); `heapMb` is the process's
   * V8 heap. `quickjs`: many runs in QuickJS VMs (engines/quickjs/main.mjs); each run's memory
   * limit travels with the run, and `heapMb` is ignored.
   */
  engine?: 'v8' | 'quickjs';
  heapMb: number;
  /** Entry file of the sandbox process; tests substitute misbehaving ones. */
  entry?: string;
  /** Use the contextified fallback global even where DONT_CONTEXTIFY exists (tests). */
  contextify?: boolean;
  /** OS layer around the process (default 'auto': bubblewrap when it works here). */
  isolation?: IsolationMode;
  /** The operator's caps (JsRuntimeOptions.caps); what is left out takes this engine's defaults. */
  caps?: ScriptCaps;
}

const live = new Set<SandboxProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Sandbox processes must not outlive the host, even when it exits without closing runtimes.
  process.once('exit', () => {
    for (const p of live) p.kill();
  });
}

/** The doorbell and the cancel slots after it (sandbox/board.mjs); memory-backed where /dev/shm is usable. */
function doorbellFile(): number {
  const dirs = fs.existsSync('/dev/shm') ? ['/dev/shm', os.tmpdir()] : [os.tmpdir()];
  for (let i = 0; ; i++) {
    const file = path.join(dirs[i]!, `toolcell-${process.pid}-${Math.random().toString(36).slice(2)}`);
    try {
      const fd = fs.openSync(file, 'w+', 0o600);
      fs.unlinkSync(file); // the open descriptors keep it alive; nothing else can find it
      fs.writeSync(fd, Buffer.alloc(4 * PROCESS_BOARD_SLOTS), 0, 4 * PROCESS_BOARD_SLOTS, 0);
      return fd;
    } catch (error) {
      if (i === dirs.length - 1) throw error;
    }
  }
}

/** Where quickjs-wasi's module and WebAssembly binary are, for the QuickJS sandbox process. */
function quickjsFiles(): { lib: string; wasm: string } {
  const require = createRequire(import.meta.url);
  return { lib: require.resolve('quickjs-wasi'), wasm: require.resolve('quickjs-wasi/quickjs.wasm') };
}

/**
 * Starts a sandbox process: the one place where one is spawned (an OS isolation layer wraps
 * this). Fd 3 carries frames to the host, fd 4 frames from it, fd 5 is the doorbell.
 */
function spawnSandbox(options: SandboxProcessOptions, caps: CheckedCaps, bellFd: number): ChildProcess {
  const quickjs = options.engine === 'quickjs';
  const entry = options.entry ?? (quickjs ? QUICKJS_ENTRY : DEFAULT_ENTRY);
  const dirs = new Set([...SHARED_DIRS, path.dirname(DEFAULT_ENTRY), path.dirname(entry)]);
  let engineArgs: string[];
  let entryArgs: string[];
  if (quickjs) {
    const files = quickjsFiles();
    dirs.add(path.dirname(QUICKJS_ENTRY));
    dirs.add(path.dirname(path.dirname(files.lib))); // the package: dist/ and quickjs.wasm
    engineArgs = [`--max-old-space-size=${QUICKJS_NODE_HEAP_MB}`];
    entryArgs = [files.lib, files.wasm];
  } else {
    engineArgs = [`--max-old-space-size=${options.heapMb}`, '--experimental-vm-modules', '--no-expose-wasm'];
    entryArgs = options.contextify ? ['--toolcell-contextify'] : [];
  }
  const args = [
    ...engineArgs,
    '--disallow-code-generation-from-strings',
    '--no-warnings',
    PERMISSION_FLAG,
    '--allow-worker', // for the orphan watchdog thread only (sandbox/io.mjs watchParent)
    ...[...dirs].map((dir) => `--allow-fs-read=${path.join(dir, '*')}`),
    entry,
    ...entryArgs,
  ];
  // OS layer (src/runtime/isolation): bubblewrap namespaces when available ('auto'), and caps.
  return spawnIsolated(options.isolation ?? 'auto', process.execPath, args, {
    readOnly: [...dirs],
    env: {},
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe', bellFd],
    caps,
    memory: 'data',
  });
}

/**
 * Caps on a sandbox process (see isolation/caps.ts). Memory counts writable private memory
 * (RLIMIT_DATA): Node reserves far more address space than it uses, so an address-space cap
 * would refuse its start. A V8 process (one conversation) gets 1 GiB above its heap limit for
 * code, stacks and ArrayBuffers, which live outside the heap and `heapMb` does not bound. A
 * QuickJS process gets no memory cap: each VM in it is bounded inside WebAssembly, and a cap
 * on the process would let one conversation's memory end its neighbours' runs. The operator's
 * `caps` replace any of these.
 */
export function processCaps(options: Pick<SandboxProcessOptions, 'engine' | 'heapMb' | 'caps'>): CheckedCaps {
  const defaults = options.engine === 'quickjs'
    ? { ...JS_PROCESS_CAPS, memoryBytes: Infinity }
    : { ...JS_PROCESS_CAPS, memoryBytes: Math.max(JS_PROCESS_CAPS.memoryBytes, (options.heapMb + 1024) * 1024 * 1024) };
  // An operator's cap wins over the default, even where the default is none (their choice).
  return checkCaps(options.caps, defaults);
}

export class SandboxProcess {
  /** Resolves once the process can take a run; rejects if it never gets there. */
  readonly ready: Promise<void>;
  private readonly life: SandboxLife;
  /** Resolves when the process is gone and its pipes are closed. */
  readonly closed: Promise<void>;
  /** The tool catalogs this process holds (runs of one of them are sent its id alone). */
  readonly catalogs = new HeldCatalogs();
  private readonly child: ChildProcess;
  private readonly toChild: Writable;
  private readonly fromChild: Readable;
  private readonly decoder = new FrameDecoder(MAX_FRAME_BYTES);
  private readonly bellFd: number;
  private readonly bell = Buffer.alloc(4);
  /** Checked once: spawn applies them, and an exit at the memory cap names them. */
  private readonly caps: CheckedCaps;
  private bellValue = 0;
  private exited = false;
  private stderrTail = '';
  private hotUntil = 0;
  private hotScheduled = false;

  constructor(private readonly options: SandboxProcessOptions) {
    installExitHook();
    this.life = new SandboxLife('sandbox process', () => this.kill());
    this.ready = this.life.ready;
    this.bellFd = doorbellFile();
    this.caps = processCaps(options);
    this.child = spawnSandbox(options, this.caps, this.bellFd);
    live.add(this);
    this.fromChild = this.child.stdio[3] as Readable;
    this.toChild = this.child.stdio[4] as Writable;
    this.closed = new Promise<void>((resolve) => this.child.once('close', () => resolve()));
    this.fromChild.on('data', (chunk: Buffer) => this.onData(chunk));
    // Write errors surface as the process ending; they need a listener so they are not thrown.
    this.toChild.on('error', () => {});
    this.fromChild.on('error', () => {});
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_KEEP);
    });
    this.child.once('error', (error) => this.life.end(`the sandbox process could not start: ${error.message}`));
    this.child.once('close', (code, signal) => this.onClose(code, signal));
    // Under bubblewrap the child is bwrap. A sandbox that outlived it (its parent-death signal
    // missed, seen once under heavy load) holds these sockets open: 'close' would never come,
    // runs would wait out their limits and the host could not exit. Once the child has exited
    // and its last output had time to drain, the streams are dropped: 'close' follows, and the
    // orphan reads the end of its input and exits.
    this.child.once('exit', () => {
      setTimeout(() => {
        for (const stream of [this.fromChild, this.toChild, this.child.stderr]) stream?.destroy();
      }, EXIT_DRAIN_MS).unref();
    });
  }

  /** Process id, for diagnostics. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.life.alive;
  }

  /** Routes messages and the end of the process to `listener` (replacing the previous one). */
  listen(listener: ProcessListener | null): void {
    this.life.listen(listener);
  }

  /** Sends one frame and rings the doorbell. */
  send(header: unknown, payloads: readonly string[]): void {
    if (!this.life.alive) return;
    this.toChild.write(encodeFrame(header, payloads));
    this.bell.writeInt32LE((this.bellValue = (this.bellValue + 1) | 0), 0);
    fs.writeSync(this.bellFd, this.bell, 0, 4, 0);
    this.keepHot();
  }

  /**
   * Posts `runId` on the cancel board, where a process busy running that run's code sees it
   * without reading the pipe (the cancel frame, sent as well, is served once it is idle).
   */
  postCancel(runId: number): void {
    if (!this.life.alive) return;
    const slot = Buffer.alloc(4);
    slot.writeInt32LE(runId | 0, 0);
    fs.writeSync(this.bellFd, slot, 0, 4, 4 * cancelSlot(runId));
  }

  /** Kills the process (idempotent); also after a protocol violation already ended it. */
  kill(): void {
    if (this.exited || this.life.killedByHost) return;
    this.life.killedByHost = true;
    this.child.kill('SIGKILL');
  }

  /**
   * Kills the process and resolves once it is gone. The host is kept alive meanwhile by a
   * timer as well as by the process's own handles: a close that waited on an unreferenced
   * handle alone was seen to let the event loop run dry before the exit arrived.
   */
  async stop(): Promise<void> {
    this.ref();
    if (!this.exited) {
      this.life.killedByHost = true;
      this.child.kill('SIGKILL');
    }
    let timer: NodeJS.Timeout | undefined;
    const beat = new Promise<void>((resolve) => {
      const tick = () => {
        // Gone once its exit is seen, even if a pipe of it has not closed yet.
        if (this.exited || this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
        this.child.kill('SIGKILL');
        timer = setTimeout(tick, 100);
      };
      timer = setTimeout(tick, 100);
    });
    await Promise.race([this.closed, beat]);
    clearTimeout(timer);
  }

  /** Keeps the host alive while the process serves a run (or until it is seen to exit). */
  ref(): void {
    this.child.ref();
    // Every stream unref() let go of: the process's 'close' waits for all of them to end.
    for (const stream of [this.fromChild, this.toChild, this.child.stderr]) {
      (stream as unknown as { ref?(): void } | null)?.ref?.();
    }
  }

  /** Lets the host exit while the process sits idle in a pool. */
  unref(): void {
    this.child.unref();
    for (const stream of [this.fromChild, this.toChild, this.child.stderr]) {
      (stream as unknown as { unref?(): void } | null)?.unref?.();
    }
  }

  private keepHot(): void {
    this.hotUntil = performance.now() + HOT_MS;
    if (this.hotScheduled) return;
    this.hotScheduled = true;
    setImmediate(this.hotTick);
  }

  private readonly hotTick = (): void => {
    if (this.life.alive && performance.now() < this.hotUntil) setImmediate(this.hotTick);
    else this.hotScheduled = false;
  };

  private onData(chunk: Buffer): void {
    try {
      this.decoder.push(chunk);
      for (let frame = this.decoder.next(); frame !== null; frame = this.decoder.next()) {
        if (!this.life.frame(frame.header, frame.payloads)) return;
      }
    } catch (error) {
      this.life.broken((error as Error).message);
    }
  }

  /** A protocol violation seen by the caller (a message for a run it never started): kill it. */
  breakBridge(reason: string): void {
    this.life.broken(reason);
  }

  private onClose(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = true;
    live.delete(this);
    fs.close(this.bellFd, () => {});
    // V8's own heap limit says "heap limit" or "JavaScript heap out of memory"; memory the cap
    // (RLIMIT_DATA) refused says "Fatal process out of memory" or "allocation failed".
    if (/heap limit|JavaScript heap out of memory/i.test(this.stderrTail)) {
      // A QuickJS process's own heap holds frames and strings for all its runs, not one script's
      // memory (each VM has its limit): naming `heapMb` there would name a limit that did not apply.
      this.life.end(this.options.engine === 'quickjs'
        ? `the sandbox process ran out of memory (its Node heap limit of ${QUICKJS_NODE_HEAP_MB} MiB)`
        : `the script ran out of memory (heap limit ${this.options.heapMb} MiB)`);
    } else if (/Fatal process out of memory|allocation failed/i.test(this.stderrTail)) {
      // Not the heap limit: the process's memory cap (RLIMIT_DATA) refused the memory.
      this.life.end(`${capMessages.memory(this.caps, 'data')}; the sandbox process exited (${signal ?? `exit code ${code}`})`);
    } else {
      this.life.end(`the sandbox process exited unexpectedly (${signal ?? `exit code ${code}`})`);
    }
  }
}
