/**
 * The host's handle on QuickJS VMs run *inline*: sandbox-loop.mjs on the host's own thread,
 * driven by its event loop (`quickjsInline`, default on threads).
 *
 * Why: on a thread, every inner call is two hand-offs between threads, and beside busy
 * processes each hand-off waits for the scheduler to wake a sleeping thread (docs/benchmarks.md,
 * "where a call's time goes"). Inline, a call is a turn of the host's event loop: no hand-off, no
 * wake-up, no copy of a frame.
 *
 * What it gives up: the host's thread runs the guest's slices. The VM is the same WebAssembly
 * instance with the same crossing, so nothing of the host becomes reachable from a script; but
 * a slice holds the host's event loop until it ends or moves (MOVE_BOUNDS; the pool's cooldown
 * bounds how often).
 *
 * It offers the surface of SandboxThread the QuickJS pool uses. Frames pass as objects (the
 * session and the loop make a payload array per frame and never change it), each way in its own
 * turn (a microtask): the host never handles a frame with a VM on the stack, and the loop never
 * takes one while a slice runs.
 */
import { pathToFileURL } from 'node:url';
import { HeldCatalogs } from '../../held-catalogs.ts';
import { SandboxLife, type ProcessListener } from '../../sandbox-life.ts';
import type { ParkedSession } from '../../protocol.ts';
import { quickjs } from './thread.ts';
import { startSandboxLoop, type SandboxLoop } from './sandbox-loop.mjs';

/**
 * When a run leaves the host's thread for a worker thread, which runs it again from its start
 * (pool.ts `move`):
 * - a slice (the script's work between two waits) over its bound: 20 ms, plus 50 ms per MiB of
 *   what it was handed (the script's text, the answers it parses: QuickJS's JSON.parse takes
 *   35–60 ms for the 1 MB answer of bench:peers; with none the run moved and its parse was
 *   replayed, with 20 ms per MiB the parse counted as a hold under load and closed the host's
 *   thread for 10× as long). The process's first slice may take 200 ms more: it pays V8's lazy
 *   compile of the engine's WebAssembly (24–38 ms idle, whatever the script), and moving for
 *   that started a worker thread in 8 of 10 new processes (+35 MB of RSS after one run in
 *   bench:peers) and turned the next runs away for 10× the hold. Over means the process also used that much CPU since the slice began, or
 *   the slice ran 80 ms past it in wall time whatever the CPU (slice-meter.mjs): a thread that
 *   only waited for a core under load keeps its run;
 * - before its next slice, a run that has had 3 s of slices here, 16 MiB of answers or 65,536
 *   clock reads, so that what a replay repeats stays bounded (a replay re-ran 5,000 calls in
 *   about 100 ms; at 1 s of wall time, beside two busy loops and four observer processes, a
 *   10,000-call run reached the bound and moved).
 */
const MOVE_BOUNDS = { sliceMs: 20, msPerMb: 50, firstSliceMs: 200, wallSlackMs: 80, totalMs: 3_000, maxBytes: 16 * 1024 * 1024, maxClockReads: 65_536 };

/** The longest the host's event loop goes without a turn while frames pass to and fro, in ms. */
const YIELD_MS = 4;

interface Frame {
  header: unknown;
  payloads: string[];
  parked?: ParkedSession;
}

export class InlineSandbox {
  readonly ready: Promise<void>;
  readonly closed: Promise<void>;
  readonly catalogs = new HeldCatalogs();
  private readonly life: SandboxLife;
  private loop: SandboxLoop | null = null;
  /** Frames from the host, taken one by one, each after the last one's work settled. */
  private readonly toLoop: Frame[] = [];
  private pumping = false;
  private pumpScheduled = false;
  /** When the pump last let the host's event loop take a turn (see send). */
  private lastYield = performance.now();
  /** Frames from the loop, handed to the host in order in a turn of their own. */
  private readonly toHost: [unknown, string[], unknown][] = [];
  private delivering = false;
  /** Runs whose cancel the host posted (postCancel: the threads' cancel board). */
  private readonly cancels = new Set<number>();
  private stopped = false;
  private settleClosed!: () => void;

  constructor() {
    this.life = new SandboxLife('inline sandbox', () => this.kill());
    this.ready = this.life.ready;
    this.closed = new Promise<void>((resolve) => (this.settleClosed = resolve));
    void this.start();
  }

  private async start(): Promise<void> {
    try {
      const shared = quickjs();
      const [library, wasmModule] = await Promise.all([import(pathToFileURL(shared.lib).href), shared.wasmModule]);
      const loop = await startSandboxLoop({
        quickjs: library,
        wasmModule,
        digest: shared.wasmDigest,
        imagePath: undefined,
        spareVms: 1,
        oneRunAtATime: true,
        movable: MOVE_BOUNDS,
        io: {
          // Only a run that leaves for a thread sends an attachment with a frame (its replay).
          send: (header: unknown, payloads: string[] = [], attachment?: unknown) => this.fromLoop(header, payloads, attachment),
          sendParked: (conv: string, session: object | null) => this.fromLoop({ t: 'parked', conv }, [], session ?? undefined),
          cancelPosted: (run: number) => this.cancels.has(run),
          framesWaiting: () => this.toLoop.length > 0,
        },
      });
      if (this.stopped) return;
      this.loop = loop;
      this.fromLoop({ t: 'ready' }, [], undefined);
      this.pump();
    } catch (error) {
      this.life.end(`the inline sandbox could not start: ${(error as Error).message}`);
    }
  }

  get alive(): boolean {
    return this.life.alive;
  }

  listen(listener: ProcessListener | null): void {
    this.life.listen(listener);
  }

  send(header: unknown, payloads: readonly string[], parked?: ParkedSession): void {
    if (!this.life.alive || this.stopped) return;
    const frame = { header, payloads: payloads as string[] };
    this.toLoop.push(parked === undefined ? frame : { ...frame, parked });
    if (this.pumping || this.pumpScheduled) return;
    this.pumpScheduled = true;
    // Answers to calls whose tools settle without I/O chain microtask after microtask: the
    // host's event loop (its I/O, timers, other threads' frames) would not run until the run
    // ends. Every YIELD_MS the next frame waits for a turn of it instead.
    const now = performance.now();
    if (now - this.lastYield < YIELD_MS) queueMicrotask(this.startPump);
    else {
      this.lastYield = now;
      setImmediate(this.startPump);
    }
  }

  private readonly startPump = (): void => {
    this.pumpScheduled = false;
    this.pump();
  };

  /** Hands the host's frames to the loop, one after another; prepares spares once none waits. */
  private pump(): void {
    if (this.pumping || this.loop === null) return;
    this.pumping = true;
    void (async () => {
      try {
        while (this.loop !== null) {
          const frame = this.toLoop.shift();
          if (frame === undefined) {
            // A run waits for its calls' answers: nothing is prepared meanwhile (they come at once).
            if (this.loop.busy()) break;
            // Preparing (a spare VM, the image a move would start from: 2 ms for a session of
            // 8 MB) waits for a turn of the event loop: the host first hands the run's outcome
            // on, and a next run sent at once is not kept behind it.
            await new Promise((resolve) => setImmediate(resolve));
            if (this.loop === null || this.toLoop.length > 0) continue;
            await this.loop.prepare();
            if (this.toLoop.length === 0) break;
            continue;
          }
          await this.loop.dispatch(frame);
        }
      } catch (error) {
        // What the process's loop reports as `fatal` before it exits.
        this.loop = null;
        this.life.end(`the inline sandbox failed: ${(error as Error)?.message ?? String(error)}`);
      } finally {
        this.pumping = false;
      }
    })();
  }

  private fromLoop(header: unknown, payloads: string[], attachment: unknown): void {
    if (this.stopped) return;
    const h = header as { t?: unknown; run?: unknown };
    if (h.t === 'idle' && typeof h.run === 'number') this.cancels.delete(h.run);
    this.toHost.push([header, payloads, attachment]);
    if (!this.delivering) {
      this.delivering = true;
      queueMicrotask(this.deliver);
    }
  }

  private readonly deliver = (): void => {
    this.delivering = false;
    for (let next = this.toHost.shift(); next !== undefined; next = this.toHost.shift()) {
      try {
        if (!this.life.frame(next[0], next[1], next[2])) return;
      } catch (error) {
        this.life.broken((error as Error).message);
        return;
      }
    }
  };

  postCancel(runId: number): void {
    if (this.life.alive) this.cancels.add(runId);
  }

  /** Drops the loop and its VMs (their memory goes with the last reference). */
  kill(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.life.killedByHost = true;
    this.loop = null;
    this.toLoop.length = 0;
    this.toHost.length = 0;
    queueMicrotask(() => {
      this.life.end('the inline sandbox was stopped');
      this.settleClosed();
    });
  }

  async stop(): Promise<void> {
    this.kill();
    await this.closed;
  }

  /** Nothing of it holds the event loop: no thread, no port. */
  ref(): void {}
  unref(): void {}

  breakBridge(reason: string): void {
    this.life.broken(reason);
  }
}
