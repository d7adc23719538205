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
  readonly outcome: Promise<DispatchOutcome>;
  /** `performance.now()` at `started` (at `pending` until approved; reset by {@link markStarted}). */
  startedAt: number;
  /** True while the call waits for approval. */
  pending = false;
  /** `performance.now()` at the terminal: the same instant its duration and its event use. */
  endedAt = 0;
  private resolveOutcome!: (outcome: DispatchOutcome) => void;
  private ended = false;
  timer: NodeJS.Timeout | undefined;

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

  /** The call's abort signal, created when a tool first asks for it. */
  get signal(): AbortSignal {
    this.abortController ??= new AbortController();
    return this.abortController.signal;
  }

  /** Aborts the signal, if anyone holds it. */
  abort(reason: Error): void {
    this.abortController?.abort(reason);
  }

  /**
   * Ends the call. Returns the duration when this was the terminal, or undefined when the
   * call had already ended (the caller then treats the outcome as late).
   */
  end(phase: TerminalPhase, result: ToolResult, refusal?: DispatchOutcome['refusal']): number | undefined {
    if (this.ended) return undefined;
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
    this.endedAt = performance.now();
    const durationMs = Math.max(0, Math.round(this.endedAt - this.startedAt));
    this.resolveOutcome({ status: phase, result, toolCallId: this.toolCallId, durationMs, ...(refusal ? { refusal } : {}) });
    return durationMs;
  }
}
