/**
 * Tasks of the 2026 tasks extension (tasks.ts) kept in the store, so that every instance on the
 * same store answers for them (docs/durable.md, "Tasks of the 2026 tasks extension"). They share
 * the background scripts' table (`toolcell_scripts`) and its lease: a task is a row whose data is
 * the `DetailedTask` that `tasks/get` answers, rewritten at each status change by the instance
 * running it.
 *
 * - **Ownership** is stored: the row's `conversation` is a digest of the caller identity that
 *   created the task; a read or a cancel from another caller is answered as an unknown id.
 * - **Cancel anywhere**: `tasks/cancel` at an instance that does not hold the run ends the row
 *   (`running` → `cancelled`, one compare-and-set: the first end wins). The instance running it
 *   renews its rows' leases every third of {@link SCRIPT_LEASE_MS} (10 s) in one statement that
 *   names the rows it renewed (store/lease-keeper.ts); a held task missing from them is read, and
 *   when it was cancelled its run is stopped. Bound: a run stops within one renewal period (10 s) plus one statement
 *   (the store's own timeout) of the cancel.
 * - **Parked**: a task whose run waits for toolcell's own approval is stored as a durable run
 *   (durable.ts) and its row says how to resume it ({@link ResumeInfo}, never shown to clients);
 *   no instance holds it, so it is never lost, and the `tasks/update` that answers it resumes it
 *   by replay at whichever instance receives it ({@link StoredTasks.adopt}).
 * - **Lost**: a running row whose lease ran out, or whose owner is a process of this machine that
 *   no longer exists, reads `failed` ("its instance stopped"); the task is never run again (its
 *   script is not in the row).
 *
 * Writes of one task are chained (the lease keeper's) so a status never overwrites the task's
 * end; a failed write is logged and the task stays answerable at its own instance.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { MAX_STORED_SCRIPT_BYTES, SCRIPT_LEASE_MS } from '../../store/bounds.ts';
import { Lease, leaseLost } from '../../store/lease-keeper.ts';
import type { DurableStore, StoredScript } from '../../store/types.ts';
import { isTerminal, MAX_TASK_TTL_MS, type TaskStatus } from '../task-records.ts';
import type { RequestMeta } from './wire.ts';

/** A task as `tasks/get` answers it (the extension's `DetailedTask`, without `resultType`). */
export type DetailedTask = Record<string, unknown> & { taskId: string; status: TaskStatus; createdAt: string; ttlMs: number };

/** What a cancel at an instance that does not hold the run found (and the parked run to forget). */
export interface StoredCancel {
  outcome: 'cancelled' | 'ended' | 'unknown';
  runId?: string;
}

/** How to resume a parked task: its stored run, and the request (as the run's exchange got it) and `_meta` to run again. */
export interface ResumeInfo {
  runId: string;
  request: { id: string | number; method: string; params: Record<string, unknown> };
  meta: RequestMeta;
}

/** The owner of a parked row: no instance (never renewed, never judged gone); its lease is the task's life. */
const PARKED = 'parked';
/** The row data's key for {@link ResumeInfo}; stripped from every answer. */
const RESUME = '_resume';

/** The JSON-RPC error code a task gets when its instance stopped (internal error). */
const LOST_CODE = -32603;

/** The row's `conversation` for a caller's tasks: a digest (the caller identity itself is not stored). */
function bindingOf(caller: string): string {
  return `tasks-extension:${createHash('sha256').update(caller).digest('hex')}`;
}

/** `Date.now()` past which a task's row is swept: its creation plus its ttl. */
function endOf(task: DetailedTask): number {
  return Date.parse(task.createdAt) + task.ttlMs;
}

/** A held task: its binding, whether its first row is written, and how to stop its run. */
interface Held {
  binding: string;
  written: boolean;
  cancelled: (message: string) => void;
}

export class StoredTasks {
  private readonly held = new Map<string, Held>();
  private readonly lease: Lease;

  constructor(
    private readonly store: DurableStore,
    private readonly logger: Logger,
    /** The lease; renewed every third of it (tests shorten it). */
    readonly leaseMs = SCRIPT_LEASE_MS,
  ) {
    this.lease = new Lease(store, leaseMs, MAX_TASK_TTL_MS, logger, 'tasks');
  }

  /**
   * The task was created here: writes its row (resolves once written or failed). `cancelled`
   * runs when another instance cancels it (seen at a lease renewal).
   */
  async started(caller: string, task: DetailedTask, cancelled: (message: string) => void): Promise<void> {
    const held: Held = { binding: bindingOf(caller), written: false, cancelled };
    this.held.set(task.taskId, held);
    const written = await this.lease.write(task.taskId, () =>
      this.store.putScript({ id: task.taskId, conversation: held.binding, owner: this.lease.owner, state: 'running', data: JSON.stringify(task), ...this.lease.until() }));
    // Renewed (and checked at each renewal) once its row exists, unless it ended meanwhile.
    if (written && this.held.get(task.taskId) === held) this.holdWritten(task.taskId, held);
    else this.release(task.taskId);
  }

  /** The task moved here: its row says so (an end is final: the task is no longer renewed). */
  moved(task: DetailedTask): void {
    const held = this.held.get(task.taskId);
    if (held === undefined) return;
    const ended = isTerminal(task.status);
    if (ended) this.release(task.taskId);
    const row: StoredScript = {
      id: task.taskId,
      conversation: held.binding,
      owner: this.lease.owner,
      state: !ended ? 'running' : task.status === 'cancelled' ? 'cancelled' : 'completed',
      data: storable(task),
      ...(ended ? { leaseUntil: 0, expiresAt: endOf(task) } : this.lease.until()),
    };
    void this.lease.write(task.taskId, () => this.store.replaceRunningScript(row));
  }

  /** The task `taskId` of `caller` as its row says; undefined for no row or another caller's. A running task whose instance stopped reads `failed`. */
  async read(taskId: string, caller: string): Promise<DetailedTask | undefined> {
    const row = await this.store.getScript(taskId);
    if (row === undefined || row.conversation !== bindingOf(caller)) return undefined;
    const { [RESUME]: _resume, ...task } = JSON.parse(row.data) as DetailedTask;
    return row.state === 'running' && leaseLost(row) ? lostTask(task as DetailedTask, row) : task as DetailedTask;
  }

  /** The parked task `taskId` of `caller` and how to resume it; undefined when it is not parked (or not the caller's). */
  async parked(taskId: string, caller: string): Promise<{ task: DetailedTask; resume: ResumeInfo } | undefined> {
    const row = await this.store.getScript(taskId);
    if (row === undefined || row.conversation !== bindingOf(caller) || row.state !== 'running' || row.owner !== PARKED) return undefined;
    const { [RESUME]: resume, ...task } = JSON.parse(row.data) as DetailedTask;
    return resume === undefined ? undefined : { task: task as DetailedTask, resume: resume as ResumeInfo };
  }

  /**
   * The held task's run was stored (durable.ts) while it waits for `task.inputRequests`: its row
   * is parked (no owner, the task's life as its lease) and this instance lets go of it. Resolves
   * whether the row says so.
   */
  park(task: DetailedTask, resume: ResumeInfo): Promise<boolean> {
    const held = this.held.get(task.taskId);
    if (held === undefined || !held.written) return Promise.resolve(false);
    this.release(task.taskId);
    const row: StoredScript = { id: task.taskId, conversation: held.binding, owner: PARKED, state: 'running', data: JSON.stringify({ ...task, [RESUME]: resume }), leaseUntil: endOf(task), expiresAt: endOf(task) };
    return this.lease.write(task.taskId, () => this.store.replaceRunningScript(row));
  }

  /**
   * A parked task is resumed here (its stored run already taken): its row names this instance
   * again, with a lease, unless it ended meanwhile (cancelled): then false, and it must not run.
   */
  async adopt(caller: string, task: DetailedTask, cancelled: (message: string) => void): Promise<boolean> {
    const binding = bindingOf(caller);
    const row: StoredScript = { id: task.taskId, conversation: binding, owner: this.lease.owner, state: 'running', data: JSON.stringify(task), ...this.lease.until() };
    if (!(await this.lease.write(task.taskId, () => this.store.replaceRunningScript(row)))) return false;
    this.holdWritten(task.taskId, { binding, written: false, cancelled });
    return true;
  }

  /** `tasks/cancel` of a task this instance does not hold: ends its row as `cancelled` (its instance stops the run at its next renewal). */
  async cancel(taskId: string, caller: string, message: string): Promise<StoredCancel> {
    const row = await this.store.getScript(taskId);
    if (row === undefined || row.conversation !== bindingOf(caller)) return { outcome: 'unknown' };
    if (row.state !== 'running' || leaseLost(row)) return { outcome: 'ended' };
    const { inputRequests: _asked, [RESUME]: resume, ...task } = JSON.parse(row.data) as DetailedTask;
    const cancelled = { ...task, status: 'cancelled', statusMessage: message, lastUpdatedAt: new Date().toISOString() } as DetailedTask;
    const done = await this.store.replaceRunningScript({ ...row, state: 'cancelled', data: JSON.stringify(cancelled), leaseUntil: 0, expiresAt: endOf(cancelled) });
    return done ? { outcome: 'cancelled', ...(resume !== undefined ? { runId: (resume as ResumeInfo).runId } : {}) } : { outcome: 'ended' };
  }

  /**
   * Whether the held task `taskId` was ended at another instance (its row says `cancelled`):
   * then its message, and the run is stopped now rather than at the next renewal.
   */
  async endedElsewhere(taskId: string): Promise<string | undefined> {
    const held = this.held.get(taskId);
    if (held === undefined || !held.written) return undefined;
    const row = await this.store.getScript(taskId);
    if (row?.state !== 'cancelled' || !this.held.has(taskId)) return undefined;
    const message = String((JSON.parse(row.data) as DetailedTask).statusMessage ?? 'cancelled');
    this.release(taskId);
    held.cancelled(message);
    return message;
  }

  /** Stops renewing and waits for every pending write (serve is stopping; the store closes after). */
  close(): Promise<void> {
    this.held.clear();
    return this.lease.close();
  }

  /** Its row exists: the keeper renews it, and a renewal that misses it reads why. */
  private holdWritten(taskId: string, held: Held): void {
    held.written = true;
    this.held.set(taskId, held);
    this.lease.hold(taskId, (id) => this.missing(id));
  }

  private release(taskId: string): void {
    this.held.delete(taskId);
    this.lease.release(taskId);
  }

  /** A renewal did not find the held task running: cancelled at another instance (or its row is gone), its run stops. */
  private async missing(taskId: string): Promise<void> {
    const row = await this.store.getScript(taskId);
    const held = this.held.get(taskId);
    if (held === undefined || row?.state === 'completed') return;
    // Cancelled at another instance, or its row is gone (swept, or removed from the store): nobody can read its outcome any more.
    const message = row !== undefined ? String((JSON.parse(row.data) as DetailedTask).statusMessage ?? 'cancelled') : 'its stored record is gone';
    this.logger.info({ taskId, store: this.store.kind }, `task ended at another instance (${message}): its run stops here`);
    this.release(taskId);
    held.cancelled(message);
  }
}

/** A running task whose instance stopped, as every instance answers it: failed, never run again. */
function lostTask(task: DetailedTask, row: StoredScript): DetailedTask {
  const { inputRequests: _asked, ...rest } = task;
  const message = `the task's instance stopped (${row.leaseUntil <= Date.now() ? 'its lease ran out' : 'its process is gone'}) while the task was ${task.status}; its outcome is unknown, and it was not run again`;
  return { ...rest, status: 'failed', statusMessage: message, lastUpdatedAt: new Date(Math.min(Date.now(), row.leaseUntil)).toISOString(), error: { code: LOST_CODE, message } };
}

/** The row's data: the task as JSON, its result replaced by a note when over {@link MAX_STORED_SCRIPT_BYTES}. */
function storable(task: DetailedTask): string {
  const data = JSON.stringify(task);
  const bytes = Buffer.byteLength(data, 'utf8');
  if (bytes <= MAX_STORED_SCRIPT_BYTES) return data;
  return JSON.stringify({
    ...task,
    result: { content: [{ type: 'text', text: `Task ${task.taskId} ended (${task.status}), but its result (${bytes} bytes) is over the store's bound (${MAX_STORED_SCRIPT_BYTES} bytes): it is kept only at the instance that ran it.` }], isError: true },
  });
}
