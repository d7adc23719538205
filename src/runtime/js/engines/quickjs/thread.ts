/**
 * The host's handle on one QuickJS sandbox *thread*: engines/quickjs/main.mjs run on a Node
 * worker thread of the host instead of in a child process (`quickjsThreads`).
 *
 * Why: a thread has its own event loop and its own V8 heap, so a script spinning, allocating or
 * making the sandbox rank a huge name occupies that thread alone: other conversations' threads
 * and the host's event loop go on. A frame is a write to a mailbox in shared memory
 * (sandbox/mailbox.mjs), or a postMessage when it cannot go there, plus an Atomics.notify on a
 * shared board, instead of a pipe write and a process wake-up. A thread that does not confirm a cancel is ended with `Worker.terminate()`: it alone
 * goes. The security boundary stays the QuickJS WebAssembly VM: nothing but strings and numbers
 * cross between a VM and the thread's own JavaScript, and the host's thread runs no guest code.
 *
 * It offers the surface of SandboxProcess the QuickJS pool uses, so the pool places runs on
 * threads and processes alike.
 */
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import { HeldCatalogs } from '../../held-catalogs.ts';
import { hostWatchRule, WATCH_MS } from '../../sandbox/watch-rule.mjs';
import {
  BOARD_SLOTS, cancelSlot, DOORBELL_SLOT, HOST_WATCHING_SLOT, THREAD_MAY_WATCH_SLOT,
  TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT, TO_THREAD_FULL_SLOT, TO_THREAD_TAKEN_SLOT,
} from '../../sandbox/board.mjs';
import { MAILBOX_BYTES, MailboxReceiver, MailboxSender, mailboxBytes } from '../../sandbox/mailbox.mjs';
import { wasmDigest } from './template.mjs';
import { SandboxLife, type ProcessListener } from '../../sandbox-life.ts';
import type { ParkedSession } from '../../protocol.ts';

/** What the thread posts to say "look in the mailbox" (sandbox/io.mjs). */
const WAKE = 'wake';
const ENTRY = fileURLToPath(new URL('./main.mjs', import.meta.url));
/** The thread's own V8 heap: frames and strings only; a script's memory is its VM's (heapMb). */
const THREAD_HEAP_MB = 256;
/** Its young generation: frames are short-lived and small; a larger nursery only grows RSS. */
const THREAD_YOUNG_MB = 4;

/** The compiled WebAssembly module (typed opaquely: the project's lib has no WebAssembly types). */
type WasmModule = object;
const { compile: compileWasm } = (globalThis as unknown as { WebAssembly: { compile: (bytes: Uint8Array) => Promise<WasmModule> } }).WebAssembly;
let shared: { lib: string; wasmModule: Promise<WasmModule>; wasmDigest: string } | undefined;
/**
 * quickjs-wasi's module path, its WebAssembly compiled once per host and shared by every thread,
 * and the digest of its bytes (a thread uses the package's template image only if it was made
 * from them: engines/quickjs/template.mjs). Compiled in the background (V8's compile threads):
 * the first thread starts meanwhile and is sent the module when it is ready, so a cold run no
 * longer waits ~10 ms for a synchronous compile before its thread even starts.
 */
export function quickjs(): { lib: string; wasmModule: Promise<WasmModule>; wasmDigest: string } {
  if (shared === undefined) {
    const require = createRequire(import.meta.url);
    const bytes = fs.readFileSync(require.resolve('quickjs-wasi/quickjs.wasm'));
    const wasmModule = compileWasm(bytes);
    // A failed compile fails every thread that waits for it (below); it is not retried.
    wasmModule.catch(() => {});
    shared = { lib: require.resolve('quickjs-wasi'), wasmModule, wasmDigest: wasmDigest(bytes) };
  }
  return shared;
}

export class SandboxThread {
  readonly ready: Promise<void>;
  readonly closed: Promise<void>;
  readonly catalogs = new HeldCatalogs();
  private readonly worker: Worker;
  /** The doorbell the thread sleeps on, the cancel slots, each side's report (sandbox/board.mjs). */
  private readonly board = new Int32Array(new SharedArrayBuffer(4 * BOARD_SLOTS));
  private readonly life: SandboxLife;
  /** Frames from the thread arrive on this port (its other end is the thread's). */
  private readonly port: MessagePort;
  /** Whether the host's loop looks for the thread's next frame after an answer, and until when; see watch(). */
  private watching = false;
  private watchUntil = 0;
  /** Answers after which the host watched (for diagnostics and tests). */
  watches = 0;
  /** Small frames beside the port, both ways (sandbox/mailbox.mjs holds the ordering rule). */
  private readonly mailboxes = new SharedArrayBuffer(2 * MAILBOX_BYTES);
  private readonly toThread: MailboxSender;
  private readonly fromThread: MailboxReceiver;

  /** @param entry the thread's script (tests start a variant of main.mjs) */
  constructor(entry?: string) {
    this.life = new SandboxLife('sandbox thread', () => this.kill());
    this.ready = this.life.ready;
    const { lib, wasmModule, wasmDigest } = quickjs();
    const channel = new MessageChannel();
    this.port = channel.port1;
    const bytes = mailboxBytes(this.mailboxes);
    this.toThread = new MailboxSender(this.board, bytes.toThread, TO_THREAD_FULL_SLOT, TO_THREAD_TAKEN_SLOT);
    this.fromThread = new MailboxReceiver(this.board, bytes.toHost, TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT);
    // The compiled module follows on a port of its own once it is ready (see quickjs()).
    const moduleChannel = new MessageChannel();
    this.worker = new Worker(entry ?? ENTRY, {
      workerData: { lib, wasmDigest, wasmPort: moduleChannel.port2, toolcellBoard: this.board.buffer, toolcellPort: channel.port2, toolcellMailboxes: this.mailboxes },
      transferList: [channel.port2, moduleChannel.port2],
      env: {},
      // The loop is plain JavaScript: the host's loaders (tsx under tests) need not start again.
      // TOOLCELL_PROFILE_THREADS=<dir>: each sandbox thread writes a V8 CPU profile there (docs/benchmarks.md).
      execArgv: process.env.TOOLCELL_PROFILE_THREADS ? ['--cpu-prof', `--cpu-prof-dir=${process.env.TOOLCELL_PROFILE_THREADS}`] : [],
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB, maxYoungGenerationSizeMb: THREAD_YOUNG_MB },
    });
    this.closed = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    wasmModule.then(
      (module) => {
        moduleChannel.port1.postMessage(module);
        moduleChannel.port1.close();
      },
      (error: Error) => {
        moduleChannel.port1.close();
        this.life.end(`the QuickJS WebAssembly could not be compiled: ${error.message}`);
        this.kill();
      },
    );
    // Its other end went with the thread; this end would otherwise keep the host's loop alive.
    this.worker.once('exit', () => this.port.close());
    this.port.on('message', (message: unknown) => this.drain(message));
    this.worker.on('message', (frame: unknown) => this.onFrame(frame));
    this.worker.once('error', (error: Error) => {
      const oom = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.life.end(oom ? `the sandbox thread ran out of memory (its heap limit of ${THREAD_HEAP_MB} MiB)` : `the sandbox thread failed: ${error.message}`);
    });
    this.worker.once('exit', (code) => this.life.end(`the sandbox thread exited unexpectedly (exit code ${code})`));
  }

  get alive(): boolean {
    return this.life.alive;
  }

  listen(listener: ProcessListener | null): void {
    this.life.listen(listener);
  }

  /** Sends one frame; a parked session given to a run moves to the thread (transferred, not copied). */
  send(header: unknown, payloads: readonly string[], parked?: ParkedSession): void {
    if (!this.life.alive) return;
    const answer = (header as { t?: unknown }).t === 'res';
    // One look at the rule per answer serves both sides: the thread reads it before its next calls.
    const watch = answer && hostWatchRule.now(performance.now());
    if (answer) Atomics.store(this.board, THREAD_MAY_WATCH_SLOT, watch ? 1 : 0);
    if (parked !== undefined) {
      this.worker.postMessage([header, payloads, parked], [parked.blocks.buffer as ArrayBuffer, parked.data.buffer as ArrayBuffer]);
      this.toThread.portPosted();
    } else if (!this.toThread.tryPut(header, payloads)) {
      this.worker.postMessage([header, payloads]);
      this.toThread.portPosted();
    }
    Atomics.add(this.board, DOORBELL_SLOT, 1);
    Atomics.notify(this.board, DOORBELL_SLOT);
    if (watch) {
      this.watches++;
      this.watchUntil = performance.now() + WATCH_MS;
      if (!this.watching) {
        this.watching = true;
        Atomics.store(this.board, HOST_WATCHING_SLOT, 1);
        setImmediate(this.watch);
      }
    }
  }

  /**
   * After an answer, the host's event loop looks for the thread's next frame instead of
   * sleeping, for WATCH_MS while a watch pays (sandbox/watch-rule.mjs says when and why): a thread that
   * posts to a sleeping loop pays the wake-up. The loop keeps running timers and I/O between
   * looks (one setImmediate each).
   */
  private readonly watch = (): void => {
    if (this.fromThread.full || this.fromThread.holding) {
      this.stopWatching();
      this.drain(undefined);
      return;
    }
    const message = receiveMessageOnPort(this.port);
    if (message !== undefined) {
      this.stopWatching();
      this.drain(message.message);
      return;
    }
    if (performance.now() < this.watchUntil && this.life.alive) setImmediate(this.watch);
    else {
      this.stopWatching();
      // The thread may have used the mailbox just before the flag went down.
      if (this.fromThread.full) this.drain(undefined);
    }
  };

  private stopWatching(): void {
    this.watching = false;
    Atomics.store(this.board, HOST_WATCHING_SLOT, 0);
  }

  /**
   * Hands on everything that came, in the order the thread sent it (sandbox/mailbox.mjs);
   * `message`: one from the thread's port, a frame or a wake to look in the mailbox.
   */
  private drain(message: unknown): void {
    try {
      for (let next = this.fromThread.take(message); next !== undefined; next = this.fromThread.take(undefined)) {
        if (next.mailbox !== undefined) this.life.frame(next.mailbox.header, next.mailbox.payloads, undefined);
        else if (next.port !== WAKE) this.onFrame(next.port);
        if (!this.life.alive) return;
      }
    } catch (error) {
      // The mailbox's take, or a mailbox frame's listener (onFrame catches its own).
      if (this.life.alive) this.life.broken((error as Error).message);
    }
  }

  postCancel(runId: number): void {
    if (!this.life.alive) return;
    Atomics.store(this.board, cancelSlot(runId), runId | 0);
  }

  kill(): void {
    if (!this.life.alive && this.life.killedByHost) return;
    this.life.killedByHost = true;
    void this.worker.terminate();
  }

  /**
   * Ends the thread and resolves once it is gone. A timer keeps the host alive meanwhile: a
   * terminate() awaited with nothing else referenced was seen to let the event loop run dry.
   */
  async stop(): Promise<void> {
    this.life.killedByHost = true;
    const beat = setInterval(() => {}, 100);
    try {
      await this.worker.terminate();
      await this.closed;
    } finally {
      clearInterval(beat);
    }
  }

  ref(): void {
    this.worker.ref();
    this.port.ref();
  }

  unref(): void {
    this.worker.unref();
    this.port.unref();
  }

  breakBridge(reason: string): void {
    this.life.broken(reason);
  }

  private onFrame(frame: unknown): void {
    try {
      if (!Array.isArray(frame) || (frame.length !== 2 && frame.length !== 3) || !Array.isArray(frame[1]) || !frame[1].every((p) => typeof p === 'string')) {
        if (this.life.alive) this.life.broken('a message that is not a frame');
        return;
      }
      this.life.frame(frame[0], frame[1] as string[], frame.length === 3 ? frame[2] : undefined);
    } catch (error) {
      this.life.broken((error as Error).message);
    }
  }
}
