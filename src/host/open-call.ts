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
}

export class OpenCall {
  /** Made on first use: most tools never read their signal, and a controller is not free. */
  private abortController: AbortController | undefined;
  readonly outcome: Promise<DispatchOutcome>;
  /** `performance.now()` at `started`. */
  readonly startedAt: number;
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
  end(phase: TerminalPhase, result: ToolResult): number | undefined {
    if (this.ended) return undefined;
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
    const durationMs = Math.max(0, Math.round(performance.now() - this.startedAt));
    this.resolveOutcome({ status: phase, result, toolCallId: this.toolCallId, durationMs });
    return durationMs;
  }
}
