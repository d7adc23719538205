/**
 * Sandbox workers, kept warm. Starting a worker costs tens of milliseconds; a fresh context in
 * a warm worker about one. A worker serves one run at a time and goes back to the pool only
 * after it answered a liveness check at the end of its run; otherwise it is replaced.
 */
import { Worker } from 'node:worker_threads';
import { parseWorkerMessage, type WorkerMessage } from './protocol.ts';

const WORKER_URL = new URL('./worker.mjs', import.meta.url);

export class SandboxWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  /** Receives each validated message of the current run. */
  onMessage: ((message: WorkerMessage) => void) | undefined;
  /** Told when the worker dies (error, exit) or sends something malformed. */
  onFailure: ((reason: string, outOfMemory: boolean) => void) | undefined;
  alive = true;

  constructor(heapMb: number) {
    this.worker = new Worker(WORKER_URL, {
      // Not the host's execArgv (a TypeScript loader would make every worker load it too).
      // --experimental-vm-modules makes `importModuleDynamically` effective, so a script's
      // import() rejects with an error of its own context instead of one of this realm.
      execArgv: ['--experimental-vm-modules', '--no-warnings'],
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, heapMb / 4)), stackSizeMb: 4 },
    });
    this.ready = new Promise((resolve, reject) => {
      const onReady = (raw: unknown) => {
        const message = parseWorkerMessage(raw);
        if (message?.t === 'ready') {
          this.worker.off('message', onReady);
          this.worker.on('message', (m: unknown) => this.route(m));
          resolve();
        }
      };
      this.worker.on('message', onReady);
      this.worker.once('error', (error) => reject(error));
      this.worker.once('exit', (code) => reject(new Error(`sandbox worker exited during startup (code ${code})`)));
    });
    // A rejection nobody awaits yet must not become an unhandled rejection.
    this.ready.catch(() => undefined);
    this.worker.on('error', (error: Error & { code?: string }) => {
      this.alive = false;
      const oom = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.onFailure?.(oom ? 'the script ran out of memory' : `the sandbox worker failed: ${error.message}`, oom);
    });
    this.worker.on('exit', (code) => {
      if (!this.alive) return;
      this.alive = false;
      this.onFailure?.(`the sandbox worker exited (code ${code})`, false);
    });
  }

  private route(raw: unknown): void {
    const message = parseWorkerMessage(raw);
    if (!message) {
      this.onFailure?.('the sandbox bridge sent a malformed message', false);
      return;
    }
    this.onMessage?.(message);
  }

  post(message: unknown): void {
    if (this.alive) this.worker.postMessage(message);
  }

  terminate(): void {
    this.alive = false;
    this.onMessage = undefined;
    this.onFailure = undefined;
    void this.worker.terminate();
  }
}

export class WorkerPool {
  private spares: SandboxWorker[] = [];
  private closed = false;
  /** Workers finishing their liveness check; a take() waits for one instead of starting a cold worker. */
  private returning = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly size: number,
    private readonly heapMb: number,
  ) {}

  /** A ready worker for one run: a warm spare when there is one. */
  async take(): Promise<SandboxWorker> {
    if (this.closed) throw new Error('the runtime is closed');
    let worker = this.spares.shift();
    while (worker && !worker.alive) worker = this.spares.shift();
    while (!worker && this.returning > 0 && !this.closed) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
      worker = this.spares.shift();
      while (worker && !worker.alive) worker = this.spares.shift();
    }
    if (!worker) worker = new SandboxWorker(this.heapMb);
    await worker.ready;
    return worker;
  }

  /** A worker went into its end-of-run liveness check; {@link settleReturn} follows. */
  beginReturn(): void {
    this.returning += 1;
  }

  /** The liveness check ended: the worker was released (or retired). Wakes one waiting take(). */
  settleReturn(): void {
    this.returning -= 1;
    this.waiters.shift()?.();
  }

  /** Starts spares in the background up to the pool size (at start, and after a worker is lost). */
  topUp(): void {
    while (!this.closed && this.spares.length < this.size) {
      const spare = new SandboxWorker(this.heapMb);
      spare.onFailure = () => {
        this.spares = this.spares.filter((w) => w !== spare);
      };
      this.spares.push(spare);
    }
  }

  /** Returns a worker that passed its liveness check. */
  release(worker: SandboxWorker): void {
    if (this.closed || !worker.alive || this.spares.length >= this.size) {
      worker.terminate();
      return;
    }
    worker.onMessage = undefined;
    worker.onFailure = () => {
      this.spares = this.spares.filter((w) => w !== worker);
    };
    this.spares.unshift(worker);
  }

  close(): void {
    this.closed = true;
    for (const wake of this.waiters.splice(0)) wake();
    for (const w of this.spares) w.terminate();
    this.spares = [];
  }
}
