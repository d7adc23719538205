/**
 * Background scripts in the store (docs/durable.md, "Background scripts"): what makes a script's
 * outcome outlive the instance running it, and what lets another instance answer for it.
 *
 * - When a call answers `running`, the script's row is written (before the answer), owned by this
 *   instance, with a lease renewed for all its running rows in one statement every third of
 *   {@link SCRIPT_LEASE_MS} (store/lease-keeper.ts).
 * - When it ends, its outcome replaces the row (kept `backgroundResultMs`, like the in-memory
 *   one); when its conversation ends, the row goes.
 * - Another instance asked about an id it does not hold reads the row, for the asking
 *   conversation only: an outcome is returned as it was; a running script is reported running,
 *   or **lost** when its owner stopped renewing the lease (or, on this machine, its process is
 *   gone). A lost script is never run again: its script text is not even stored.
 *
 * Writes for one script are chained, so its outcome can never be overwritten by its `running`
 * row; a failed write is logged and the script stays answerable at its own instance.
 */
import type { Logger } from 'pino';
import type { ToolResult } from '../../host/types.ts';
import { MAX_STORED_SCRIPT_BYTES, SCRIPT_LEASE_MS } from '../../store/bounds.ts';
import { Lease, leaseLost } from '../../store/lease-keeper.ts';
import type { DurableStore } from '../../store/types.ts';
import type { TimeLimit } from '../result.ts';

/** How often a `wait` at another instance reads a running script's row again (one read per waiting call). */
export const STORED_POLL_MS = 1_000;

/** What another instance's row says about a script of the asking conversation. */
export type StoredLookup =
  | { state: 'running'; scriptId: string; timeLimit: TimeLimit }
  | { state: 'lost'; scriptId: string }
  | { state: 'completed' | 'cancelled'; scriptId: string; result: ToolResult };

/** The parts of a background script this file reads. */
interface ScriptView {
  scriptId: string;
  conversationId: string;
  timeLimit: TimeLimit;
  status: 'running' | 'completed' | 'cancelled';
  result?: ToolResult;
}

export class StoredScripts {
  private readonly lease: Lease;

  constructor(
    private readonly store: DurableStore,
    private readonly resultMs: number,
    logger: Logger,
    leaseMs = SCRIPT_LEASE_MS,
  ) {
    this.lease = new Lease(store, leaseMs, resultMs, logger, 'background scripts');
  }

  /** The call answers `running`: writes the row first (resolves when written or failed). */
  async started(script: ScriptView): Promise<void> {
    this.lease.hold(script.scriptId);
    await this.lease.write(script.scriptId, () => this.store.putScript({
      id: script.scriptId,
      conversation: script.conversationId,
      owner: this.lease.owner,
      state: 'running',
      data: JSON.stringify({ timeLimit: script.timeLimit }),
      ...this.lease.until(),
    }));
  }

  /** The script ended: its outcome replaces the row, or (`forget`: its conversation ended) the row goes. */
  ended(script: ScriptView, forget: boolean): void {
    this.lease.release(script.scriptId);
    if (forget) {
      this.forget(script.scriptId);
      return;
    }
    const status = script.status === 'cancelled' ? 'cancelled' : 'completed';
    let data = JSON.stringify(script.result);
    const bytes = Buffer.byteLength(data, 'utf8');
    if (bytes > MAX_STORED_SCRIPT_BYTES) {
      data = JSON.stringify({ content: [{ type: 'text', text: `Background script ${script.scriptId} ended (${status}), but its result (${bytes} bytes) is over the store's bound (${MAX_STORED_SCRIPT_BYTES} bytes): it was kept only at the instance that ran it.` }], isError: true });
    }
    void this.lease.write(script.scriptId, () => this.store.putScript({
      id: script.scriptId, conversation: script.conversationId, owner: this.lease.owner, state: status, data, leaseUntil: 0, expiresAt: Date.now() + this.resultMs,
    }));
  }

  /** Its conversation ended: nobody can ask for it any more. */
  forget(scriptId: string): void {
    void this.lease.write(scriptId, () => this.store.deleteScript(scriptId));
  }

  /** The row of `scriptId` for `conversationId`, as an answer; undefined for no row or another conversation's. */
  async lookup(scriptId: string, conversationId: string): Promise<StoredLookup | undefined> {
    const row = await this.store.getScript(scriptId);
    if (row === undefined || row.conversation !== conversationId) return undefined;
    if (row.state !== 'running') return { state: row.state, scriptId, result: JSON.parse(row.data) as ToolResult };
    if (leaseLost(row)) return { state: 'lost', scriptId };
    return { state: 'running', scriptId, timeLimit: (JSON.parse(row.data) as { timeLimit: TimeLimit }).timeLimit };
  }

  /** Stops renewing and waits for every pending write (the host is closing; the store closes after). */
  close(): Promise<void> {
    return this.lease.close();
  }
}
