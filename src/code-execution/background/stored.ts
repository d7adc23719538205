/**
 * Background scripts in the store (docs/durable.md, "Background scripts"): what makes a script's
 * outcome outlive the instance running it, and what lets another instance answer for it.
 *
 * - When a call answers `running`, the script's row is written (before the answer), owned by this
 *   instance, with a lease this instance renews for all its running scripts in one statement
 *   every third of {@link SCRIPT_LEASE_MS}.
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
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { ToolResult } from '../../host/types.ts';
import { MAX_STORED_SCRIPT_BYTES, SCRIPT_LEASE_MS } from '../../store/bounds.ts';
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
  /** This instance, as rows name their owner: host, process, and a random part per registry. */
  readonly owner = instanceOwner();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly runningIds = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: DurableStore,
    private readonly resultMs: number,
    private readonly logger: Logger,
    private readonly leaseMs = SCRIPT_LEASE_MS,
  ) {}

  /** The call answers `running`: writes the row first (resolves when written or failed). */
  started(script: ScriptView): Promise<void> {
    this.runningIds.add(script.scriptId);
    this.timer ??= setInterval(() => this.renew(), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
    const now = Date.now();
    return this.write(script.scriptId, () => this.store.putScript({
      id: script.scriptId,
      conversation: script.conversationId,
      owner: this.owner,
      state: 'running',
      data: JSON.stringify({ timeLimit: script.timeLimit }),
      leaseUntil: now + this.leaseMs,
      expiresAt: now + this.leaseMs + this.resultMs,
    }));
  }

  /** The script ended: its outcome replaces the row, or (`forget`: its conversation ended) the row goes. */
  ended(script: ScriptView, forget: boolean): void {
    this.stopRenewing(script.scriptId);
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
    void this.write(script.scriptId, () => this.store.putScript({
      id: script.scriptId, conversation: script.conversationId, owner: this.owner, state: status, data, leaseUntil: 0, expiresAt: Date.now() + this.resultMs,
    }));
  }

  /** Its conversation ended: nobody can ask for it any more. */
  forget(scriptId: string): void {
    void this.write(scriptId, () => this.store.deleteScript(scriptId));
  }

  /** The row of `scriptId` for `conversationId`, as an answer; undefined for no row or another conversation's. */
  async lookup(scriptId: string, conversationId: string): Promise<StoredLookup | undefined> {
    const row = await this.store.getScript(scriptId);
    if (row === undefined || row.conversation !== conversationId) return undefined;
    if (row.state !== 'running') return { state: row.state, scriptId, result: JSON.parse(row.data) as ToolResult };
    if (row.leaseUntil <= Date.now() || ownerGone(row.owner)) return { state: 'lost', scriptId };
    return { state: 'running', scriptId, timeLimit: (JSON.parse(row.data) as { timeLimit: TimeLimit }).timeLimit };
  }

  /** Stops renewing and waits for every pending write (the host is closing; the store closes after). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.chains.values()]);
  }

  private stopRenewing(scriptId: string): void {
    this.runningIds.delete(scriptId);
    if (this.runningIds.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private renew(): void {
    const now = Date.now();
    this.store.renewScripts(this.owner, now + this.leaseMs, now + this.leaseMs + this.resultMs).catch((error: unknown) => {
      this.logger.warn({ err: error, store: this.store.kind }, 'background scripts: the lease could not be renewed; other instances may report them lost');
    });
  }

  /** Runs `step` after the script's earlier writes; a failure is logged, never thrown. */
  private write(scriptId: string, step: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(scriptId) ?? Promise.resolve()).then(step).catch((error: unknown) => {
      this.logger.warn({ err: error, store: this.store.kind, scriptId }, 'background scripts: the store could not be written; the script is answerable only at this instance');
    });
    this.chains.set(scriptId, next);
    void next.then(() => {
      if (this.chains.get(scriptId) === next) this.chains.delete(scriptId);
    });
    return next;
  }
}

/** A name for rows this process owns (`host/pid/random`): what {@link ownerGone} reads back. */
export function instanceOwner(): string {
  return `${hostname()}/${process.pid}/${randomBytes(6).toString('base64url')}`;
}

/**
 * Whether a row's owner (named by {@link instanceOwner}) is a process of this machine that no
 * longer exists (restart in place); another machine's owner is judged by its lease only.
 */
export function ownerGone(owner: string): boolean {
  const [host, pid] = owner.split('/');
  const n = Number(pid);
  if (host !== hostname() || !Number.isSafeInteger(n) || n <= 0 || n === process.pid) return false;
  try {
    process.kill(n, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists (another user's); only ESRCH says it is gone.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

