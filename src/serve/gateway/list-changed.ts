/**
 * `list_changed` to one client, coalesced: however many changes a provider (or another client
 * driving it) causes, a client is sent at most one `notifications/<kind>/list_changed` per
 * kind per {@link LIST_CHANGED_MIN_GAP_MS}, and never more than one waiting. A notification
 * says only "list again", so one sent after the last change says all that thousands would.
 */
import type { Logger } from 'pino';

/** Shortest time between two `list_changed` of one kind to one client: at most 10 a second. */
export const LIST_CHANGED_MIN_GAP_MS = 100;

export type ListKind = 'tools' | 'resources' | 'prompts';

export class ListChanges {
  private readonly pending = new Set<ListKind>();
  private readonly lastSent = new Map<ListKind, number>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Notifications sent so far (tests and diagnostics). */
  sent = 0;

  constructor(
    /** Sends one kind's `list_changed` to the client. */
    private readonly send: (kind: ListKind) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  /** A list of `kind` changed: the client hears of it at once, or when the gap since the last one has passed. */
  changed(kind: ListKind): void {
    if (this.stopped) return;
    this.pending.add(kind);
    this.schedule();
  }

  /** The client left: nothing more is sent. */
  stop(): void {
    this.stopped = true;
    this.pending.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    const now = Date.now();
    let wait = Infinity;
    for (const kind of this.pending) wait = Math.min(wait, Math.max(0, (this.lastSent.get(kind) ?? -Infinity) + LIST_CHANGED_MIN_GAP_MS - now));
    if (wait === Infinity) return;
    if (wait === 0) return this.flush();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
    this.timer.unref();
  }

  private flush(): void {
    const now = Date.now();
    for (const kind of [...this.pending]) {
      if ((this.lastSent.get(kind) ?? -Infinity) + LIST_CHANGED_MIN_GAP_MS > now) continue;
      this.pending.delete(kind);
      this.lastSent.set(kind, now);
      this.sent += 1;
      this.send(kind).catch((error: Error) => this.logger.debug({ err: error, kind }, 'a list_changed could not be delivered to a client'));
    }
    if (this.pending.size > 0) this.schedule();
  }
}
