/**
 * One call between its opening and its terminal. The terminal is decided exactly once: the
 * first of result, failure, timeout or abort wins, and everything after it is a late
 * outcome that the host consumes and reports in-process, never to the caller.
 */
import type { EmittedCall } from '../lifecycle/emitter.ts';
import type { TerminalPhase } from '../lifecycle/events.ts';
import type { CallOrigin, DispatchOutcome, RegisteredTool, ToolResult } from './types.ts';

export interface InferenceRecord {
  inferenceId: string;
  conversationId: string;
  streamId?: string;
  /** Calls opened under this inference so far, the model's and its scripts' (for the call budget). */
  calls: number;
}

export class OpenCall {
  /** Made on first use: most tools never read their signal, and a controller is not free. */
  private abortController: AbortController | undefined;
  /**
   * Set by {@link abort}, even before anyone holds the signal: a tool that first reads its
   * signal after the call was aborted (after an `await`, say) gets one that is already aborted.
   */
  private abortReason: Error | undefined;
  readonly outcome: Promise<DispatchOutcome>;
  /** `performance.now()` at `started` (at `pending` until approved; reset by {@link markStarted}). */
  startedAt: number;
  /** True while the call waits for approval. */
  pending = false;
  /** `performance.now()` at the terminal: the same instant its duration and its event use. */
  endedAt = 0;
  private resolveOutcome!: (outcome: DispatchOutcome) => void;
  private ended = false;
  /** Its safety timeout, kept by the host's CallDeadlines while it executes (see call-deadlines.ts). */
  deadline = -1;
  /** Its timeout's length once the timeout started (then released at its terminal), 0 before. */
  deadlineLane = 0;
  /** Removes the listener on the request's own `signal`, if it had one; run at the terminal. */
  detachSignal: (() => void) | undefined;

  constructor(
    readonly toolCallId: string,
    readonly tool: RegisteredTool,
    readonly inference: InferenceRecord,
    readonly origin: CallOrigin,
    readonly args: Record<string, unknown>,
    readonly emitted: EmittedCall,
    readonly modelCallId: string | undefined,
    readonly parentToolCallId: string | undefined,
  ) {
    this.startedAt = performance.now();
    this.outcome = new Promise((resolve) => {
      this.resolveOutcome = resolve;
    });
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /** The gate cleared: the duration counts from now, so it excludes the approval wait. */
  markStarted(): void {
    this.pending = false;
    this.startedAt = performance.now();
  }

  /** The call's abort signal, created when a tool first asks for it (already aborted if the call was). */
  get signal(): AbortSignal {
    if (this.abortController === undefined) {
      this.abortController = new AbortController();
      if (this.abortReason !== undefined) this.abortController.abort(this.abortReason);
    }
    return this.abortController.signal;
  }

  /** Whether {@link abort} was called. */
  get aborted(): boolean {
    return this.abortReason !== undefined;
  }

  /** Aborts the signal now, or — when nobody holds it yet — at its first read. The first reason wins. */
  abort(reason: Error): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.abortController?.abort(reason);
  }

  /**
   * Ends the call. Returns the duration when this was the terminal, or undefined when the
   * call had already ended (the caller then treats the outcome as late).
   */
  end(phase: TerminalPhase, result: ToolResult, refusal?: DispatchOutcome['refusal']): number | undefined {
    if (this.ended) return undefined;
    this.ended = true;
    this.detachSignal?.();
    this.endedAt = performance.now();
    const durationMs = Math.max(0, Math.round(this.endedAt - this.startedAt));
    const outcome: DispatchOutcome = { status: phase, result, toolCallId: this.toolCallId, durationMs };
    if (refusal) outcome.refusal = refusal;
    this.resolveOutcome(outcome);
    return durationMs;
  }
}
