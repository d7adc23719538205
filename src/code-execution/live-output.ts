/**
 * A script's output while it runs (issue 44, item 5): console lines and prints (JavaScript),
 * stdout and stderr (Python) reach the embedding application as the host's `script-output`
 * event, and the caller that asked for progress (an MCP client of `serve` with a progress token,
 * a framework's onProgress) as progress notifications whose message is the output.
 *
 * Coalesced and bounded, because a script decides how much it prints: lines are gathered for
 * {@link LIVE_OUTPUT_INTERVAL_MS} and sent as one piece of at most {@link LIVE_OUTPUT_CHARS}
 * characters; what does not fit is counted (`dropped`) and stays in the result, which holds the
 * whole output (within its own caps) when the run ends.
 */
import type { ToolHost } from '../host/tool-host.ts';
import type { HostToolContext } from '../host/types.ts';

/** How long output is gathered before it is sent: at most 20 notifications a second per run. */
export const LIVE_OUTPUT_INTERVAL_MS = 50;
/** Longest text of one notification; the rest of that interval's output is counted as dropped. */
export const LIVE_OUTPUT_CHARS = 2_000;

export class LiveOutput {
  private text = '';
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly host: ToolHost,
    private readonly ctx: HostToolContext,
    /** The execution's progress sink (monotonic), when the caller asked for progress. */
    private readonly progress: ((message: string) => void) | undefined,
  ) {}

  /** One piece of output: a line of a console method (`level`), print, or a chunk of a Python stream. */
  readonly push = (stream: string, text: string): void => {
    if (this.ended) return;
    const line = stream === 'stdout' || stream === 'log' ? text : `[${stream}] ${text}`;
    const piece = stream === 'stdout' && !text.endsWith('\n') && this.text === '' ? line : line.endsWith('\n') ? line : `${line}\n`;
    const room = LIVE_OUTPUT_CHARS - this.text.length;
    if (room <= 0) this.dropped += piece.length;
    else if (piece.length > room) {
      this.text += piece.slice(0, room);
      this.dropped += piece.length - room;
    } else this.text += piece;
    if (this.timer === undefined) {
      this.timer = setTimeout(this.flush, LIVE_OUTPUT_INTERVAL_MS);
      this.timer.unref();
    }
  };

  private readonly flush = (): void => {
    this.timer = undefined;
    if (this.text === '' && this.dropped === 0) return;
    const { text, dropped } = this;
    this.text = '';
    this.dropped = 0;
    this.host.emit('script-output', { toolCallId: this.ctx.toolCallId, inferenceId: this.ctx.inferenceId, conversationId: this.ctx.conversationId, text, dropped });
    this.progress?.(dropped > 0 ? `${text}(${dropped} more characters in the result)` : text);
  };

  /** The run ended: what waits is sent now, before the result; later output is ignored. */
  end(): void {
    if (this.ended) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.flush();
    this.ended = true;
  }
}
