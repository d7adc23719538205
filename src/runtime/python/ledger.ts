import type { CallStatus, CallSummary } from '../types.ts';

/** One call a script made, while it is open. */
export interface OpenCall {
  readonly name: string;
  /** Aborted when the run gives up on the call. */
  readonly controller: AbortController;
}

interface Entry extends OpenCall {
  startedAt: number;
  recorded: boolean;
  status: CallStatus | null;
  durationMs: number;
}

/**
 * The calls of one run, in start order. Each call is settled exactly once: by its own result,
 * or as `cancelled` when the run ends first, in which case its signal is aborted and whatever
 * it later resolves with is dropped.
 */
export class CallLedger {
  #entries: Entry[] = [];
  #open = new Set<Entry>();

  /** Opens a call. `recorded` is false for helper globals, which do not appear in summaries. */
  open(name: string, recorded: boolean): OpenCall {
    const entry: Entry = {
      name,
      controller: new AbortController(),
      startedAt: performance.now(),
      recorded,
      status: null,
      durationMs: 0,
    };
    this.#entries.push(entry);
    this.#open.add(entry);
    return entry;
  }

  /** Settles an open call; returns false if it was already settled (its result must be dropped). */
  settle(call: OpenCall, status: CallStatus): boolean {
    const entry = call as Entry;
    if (!this.#open.delete(entry)) return false;
    entry.status = status;
    entry.durationMs = performance.now() - entry.startedAt;
    return true;
  }

  /** Ends every open call as `cancelled` and aborts its signal. */
  cancelOpen(reason: Error): void {
    for (const entry of [...this.#open]) {
      this.settle(entry, 'cancelled');
      entry.controller.abort(reason);
    }
  }

  summaries(): CallSummary[] {
    return this.#entries
      .filter((e) => e.recorded)
      .map((e) => ({ name: e.name, status: e.status ?? 'cancelled', durationMs: Math.round(e.durationMs * 1000) / 1000 }));
  }
}
