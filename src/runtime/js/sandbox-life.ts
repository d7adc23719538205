/**
 * The life of one place where guest code runs, seen from the host — a sandbox process
 * (sandbox-process.ts) or a sandbox thread (engines/quickjs/thread.ts): the `ready` promise and
 * the timer that gives up on a start, the validation and routing of every message to the one
 * listener, and the single end that listener is told (with whether the host killed it). The two
 * transports differ in how frames travel and how the sandbox is stopped, not in this.
 */
import { parseChildMessage, routeChildMessage } from './protocol.ts';
import type { ChildMessage } from './protocol.ts';

/** How a sandbox ended, from the host's point of view. */
export interface ProcessEnd {
  /** True when the host killed it; otherwise it crashed or broke the protocol. */
  killed: boolean;
  message: string;
}

/** Receives what a sandbox says; exactly one listener at a time. */
export interface ProcessListener {
  message(message: ChildMessage): void;
  end(end: ProcessEnd): void;
}

/** How long a sandbox may take to announce itself before it is killed. */
export const READY_TIMEOUT_MS = 20_000;

export class SandboxLife {
  /** Resolves once the sandbox can take a run; rejects if it never gets there. */
  readonly ready: Promise<void>;
  /** Set by the owner when it kills the sandbox: the end then says `killed`. */
  killedByHost = false;
  private listener: ProcessListener | null = null;
  private isReady = false;
  private ended = false;
  private readonly readyTimer: NodeJS.Timeout;
  private settleReady!: (error?: Error) => void;

  /**
   * @param what how messages name the sandbox ("sandbox process", "sandbox thread")
   * @param kill stops the sandbox for good (after a protocol violation or a start that never ends)
   */
  constructor(private readonly what: string, private readonly kill: () => void) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.settleReady = (error) => (error ? reject(error) : resolve());
    });
    // Callers that never await readiness must not see an unhandled rejection.
    this.ready.catch(() => {});
    this.readyTimer = setTimeout(() => {
      this.kill();
      this.end(`the ${what} did not start within ${READY_TIMEOUT_MS} ms`);
    }, READY_TIMEOUT_MS);
    this.readyTimer.unref();
  }

  get alive(): boolean {
    return !this.ended;
  }

  /** Routes messages and the end to `listener` (replacing the previous one). */
  listen(listener: ProcessListener | null): void {
    this.listener = listener;
  }

  /**
   * Validates one decoded frame and acts on it. Returns false once the sandbox has ended
   * (this frame broke the bridge, or the listener ended it): later frames must be dropped.
   */
  frame(header: unknown, payloads: readonly string[], attachment?: unknown): boolean {
    if (this.ended) return false;
    const route = routeChildMessage(parseChildMessage(header, payloads, attachment), { ready: this.isReady, listening: this.listener !== null }, this.what);
    if (route.do === 'break') {
      this.broken(route.reason);
      return false;
    }
    if (route.do === 'ready') {
      this.isReady = true;
      clearTimeout(this.readyTimer);
      this.settleReady();
      return true;
    }
    this.listener!.message(route.message);
    return !this.ended;
  }

  /** A protocol violation: the sandbox is untrustworthy from here on. */
  broken(reason: string): void {
    this.kill();
    this.end(`broken sandbox bridge: ${reason}`);
  }

  /** The sandbox is gone (or given up on): tells the listener once, and fails `ready` if it was pending. */
  end(message: string): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.readyTimer);
    const end: ProcessEnd = { killed: this.killedByHost, message };
    this.settleReady(new Error(message));
    const listener = this.listener;
    this.listener = null;
    listener?.end(end);
  }
}
