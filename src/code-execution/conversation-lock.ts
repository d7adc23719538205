/**
 * One foreground `code_execution` per conversation. The lock is taken synchronously, before
 * the handler's first await, so of two executions started in the same tick only one gets in.
 *
 * Who holds it: an execution from its start until its script has really stopped — which can be
 * a little after its call's terminal (a Python script stops at its next await, then an
 * interrupt, then a kill). A holder whose call has ended is therefore never a reason to refuse:
 * the next execution waits for the old script's death. Only a holder whose call is still open
 * (or an execution already queued behind it) can make a newcomer be refused, and only with
 * `whenBusy: 'refuse'`; with `'wait'` the newcomer queues, first come first served, bounded by
 * `busyWaitMs` and cancelled by its own call's signal.
 */

/** What an execution does when another one holds its conversation. */
export type WhenBusy = 'refuse' | 'wait';

/** Held by the execution that runs; released once its script has stopped. */
export interface Lease {
  release(): void;
}

/** The lock was taken, or the execution was not run (with the reason, for the model). */
export type Acquired = { lease: Lease } | { refused: string };

export interface AcquireOptions {
  /** The execution's call signal: aborted when the call ends without the script's help. */
  signal: AbortSignal;
  whenBusy: WhenBusy;
  /** Longest wait for the conversation, in ms. */
  busyWaitMs: number;
}

interface Waiter {
  grant(): void;
  refuse(message: string): void;
}

interface Slot {
  /** The holder's call has no terminal yet. */
  holderOpen: boolean;
  detachHolder: () => void;
  waiters: Waiter[];
}

export const BUSY_MESSAGE = 'Another code_execution is already running in this conversation; this one was not run. Wait for it to finish, then try again.';

const SHUTTING_DOWN = 'code_execution is shutting down; the script was not run.';

export class ConversationLock {
  private readonly slots = new Map<string, Slot>();
  private closed = false;

  /** Whether any execution holds or waits for the conversation. */
  isBusy(conversationId: string): boolean {
    return this.slots.has(conversationId);
  }

  /**
   * Takes the conversation now (a lease, synchronously), refuses synchronously, or returns a
   * promise of either once the wait is over.
   */
  acquire(conversationId: string, options: AcquireOptions): Acquired | Promise<Acquired> {
    if (this.closed) return { refused: SHUTTING_DOWN };
    if (options.signal.aborted) return { refused: 'The call was aborted before its script started; it was not run.' };
    const slot = this.slots.get(conversationId);
    if (slot === undefined) {
      const fresh: Slot = { holderOpen: true, detachHolder: () => {}, waiters: [] };
      this.slots.set(conversationId, fresh);
      return { lease: this.hold(conversationId, fresh, options.signal) };
    }
    if (options.whenBusy === 'refuse' && (slot.holderOpen || slot.waiters.length > 0)) return { refused: BUSY_MESSAGE };
    return this.wait(conversationId, slot, options);
  }

  /** Refuses every waiting execution and any later one. */
  close(): void {
    this.closed = true;
    for (const slot of this.slots.values()) {
      for (const waiter of [...slot.waiters]) waiter.refuse(SHUTTING_DOWN);
    }
  }

  private hold(conversationId: string, slot: Slot, signal: AbortSignal): Lease {
    const onAbort = () => {
      slot.holderOpen = false;
    };
    slot.holderOpen = !signal.aborted;
    signal.addEventListener('abort', onAbort, { once: true });
    slot.detachHolder = () => signal.removeEventListener('abort', onAbort);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        slot.detachHolder();
        const next = slot.waiters.shift();
        if (next === undefined) this.slots.delete(conversationId);
        else next.grant();
      },
    };
  }

  private wait(conversationId: string, slot: Slot, options: AcquireOptions): Promise<Acquired> {
    return new Promise<Acquired>((resolve) => {
      const { signal } = options;
      const leave = (refused: string) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const at = slot.waiters.indexOf(waiter);
        if (at >= 0) slot.waiters.splice(at, 1);
        resolve({ refused });
      };
      const onAbort = () => leave('The call was aborted while it waited for another code_execution in this conversation; it was not run.');
      const timer = setTimeout(
        () => leave(`Another code_execution kept this conversation busy for ${options.busyWaitMs} ms; this one waited, then gave up and was not run. Try again later.`),
        options.busyWaitMs,
      );
      const waiter: Waiter = {
        refuse: leave,
        grant: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve({ lease: this.hold(conversationId, slot, signal) });
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      slot.waiters.push(waiter);
    });
  }
}
