/**
 * Warm sandbox processes of one heap size. Starting one costs tens of milliseconds, so `spare`
 * ready processes are kept beyond those serving runs. A process that finished a run comes back
 * only after it proves its event loop is free (the `idle` signal its session waits for);
 * otherwise it is killed and replaced.
 */
import { SandboxProcess, type ProcessEnd, type SandboxProcessOptions } from '../../sandbox-process.ts';

interface Waiter {
  resolve(process: SandboxProcess): void;
  reject(error: Error): void;
}

/** Error of an acquire that could not be served. */
export class PoolClosedError extends Error {
  constructor() {
    super('the runtime is closed');
    this.name = 'PoolClosedError';
  }
}

export class SandboxPool {
  private readonly idle: SandboxProcess[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly live = new Set<SandboxProcess>();
  private starting = 0;
  private returning = 0;
  private closed = false;
  /** Processes started and killed over the pool's life (monitoring, tests). */
  readonly counts = { started: 0, killed: 0 };

  constructor(
    private readonly spare: number,
    private readonly options: SandboxProcessOptions,
    /** Told when a process becomes idle: a run waiting for room elsewhere may take it. */
    private readonly onIdle?: () => void,
  ) {}

  /** Processes alive or starting, and those idle (ready for a run without starting one). */
  get size(): { live: number; idle: number } {
    return { live: this.live.size, idle: this.idle.length };
  }

  /** Starts spare processes ahead of demand. */
  warm(): void {
    this.topUp();
  }

  /**
   * A ready process for one run; the caller must hand it back with {@link release}. Aborting
   * `signal` withdraws the request (rejecting with its reason) without wasting a process.
   */
  acquire(signal?: AbortSignal): Promise<SandboxProcess> {
    if (this.closed) return Promise.reject(new PoolClosedError());
    const ready = this.idle.pop();
    if (ready !== undefined) {
      this.topUp();
      return Promise.resolve(ready);
    }
    return new Promise<SandboxProcess>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        resolve: (p) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(p);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.topUp();
    });
  }

  /** The process finished a run and is expected back shortly; counts as supply meanwhile. */
  returningSoon(): void {
    this.returning++;
  }

  /**
   * Hands a process back. `healthy` means it answered the liveness check; anything else is killed.
   * `wasReturning` pairs with an earlier {@link returningSoon}.
   */
  release(process: SandboxProcess, healthy: boolean, wasReturning: boolean): void {
    if (wasReturning) this.returning--;
    if (healthy && process.alive) this.available(process);
    else this.discard(process);
    this.topUp();
  }

  /**
   * Ends one idle spare process, if there is one, without starting a replacement: a run that
   * needs a place under a process cap takes it. True when one was ended.
   */
  dropIdle(): boolean {
    const p = this.idle.pop();
    if (p === undefined) return false;
    this.discard(p);
    return true;
  }

  /** Rejects waiters and kills every process; resolves once they are gone. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(new PoolClosedError());
    const all = [...this.live];
    this.idle.length = 0;
    await Promise.all(all.map((p) => p.stop()));
  }

  private topUp(): void {
    if (this.closed) return;
    const supply = this.idle.length + this.starting + this.returning;
    for (let i = supply; i < this.waiters.length + this.spare; i++) this.spawnOne();
  }

  private spawnOne(): void {
    let p: SandboxProcess;
    try {
      p = new SandboxProcess(this.options);
    } catch (error) {
      // No doorbell file could be made: nothing was started.
      this.waiters.shift()?.reject(error as Error);
      return;
    }
    this.counts.started++;
    this.starting++;
    this.live.add(p);
    // Referenced until it is ready: a run may be waiting for it.
    p.listen({ message: () => {}, end: () => {} });
    p.ready.then(
      () => {
        this.starting--;
        this.available(p);
      },
      (error: Error) => {
        this.starting--;
        this.live.delete(p);
        // Fail one waiter instead of retrying forever: a process that cannot start now
        // (missing node, exhausted memory) will not start on the next attempt either.
        this.waiters.shift()?.reject(error);
      },
    );
  }

  private available(p: SandboxProcess): void {
    if (this.closed || !p.alive) return this.discard(p);
    const waiter = this.waiters.shift();
    if (waiter !== undefined) return waiter.resolve(p);
    if (this.idle.length > this.spare) return this.discard(p);
    p.unref();
    p.listen({ message: () => this.discard(p), end: (end: ProcessEnd) => this.lost(p, end) });
    this.idle.push(p);
    this.onIdle?.();
  }

  private lost(p: SandboxProcess, _end: ProcessEnd): void {
    const at = this.idle.indexOf(p);
    if (at >= 0) this.idle.splice(at, 1);
    this.live.delete(p);
    this.topUp();
  }

  private discard(p: SandboxProcess): void {
    const at = this.idle.indexOf(p);
    if (at >= 0) this.idle.splice(at, 1);
    p.listen(null);
    if (p.alive) this.counts.killed++;
    p.kill();
    this.live.delete(p);
  }
}
