/**
 * The task records serve keeps for `code_execution` runs, shared by both eras' task surfaces:
 * the 2025-11-25 tasks of a session (script-tasks.ts) and the 2026-07-28 tasks extension of
 * the stateless endpoint (modern/tasks.ts). This file owns what both must agree on — ids, who
 * may see a task, how many one owner holds, how long a task lives, and that a task that ended
 * stays ended — and nothing of either wire.
 *
 * Tenants never meet: every lookup names the owner asking (a serve session, or the caller
 * identity of a 2026 request), and another owner's id is answered exactly as an id that never
 * existed (`undefined`, the same path).
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_BACKGROUND_RESULT_MS, DEFAULT_MAX_BACKGROUND_SCRIPTS } from '../code-execution/background/registry.ts';

/**
 * Tasks one owner (a 2025 session, a 2026 caller) holds at once, running and finished: the
 * host's cap on running background scripts (16). Past it the oldest finished task is dropped;
 * with every one still running, a new task is refused.
 */
export const MAX_TASKS_PER_OWNER = DEFAULT_MAX_BACKGROUND_SCRIPTS;
/** Longest a task (and its kept result) lives after it was created: the background result time, 10 minutes. A client's smaller ttl wins. */
export const MAX_TASK_TTL_MS = DEFAULT_BACKGROUND_RESULT_MS;
/** Poll interval suggested to clients (ms). */
export const TASK_POLL_INTERVAL_MS = 500;
/** Random bytes in a task id (144 bits): not guessable, not derived from any other id. */
const TASK_ID_BYTES = 18;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Whether `status` is an end state (a task in one never changes again). */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A task's state as both wires need it (each era renders its own field names). */
export interface TaskState {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
}

/** One task: its state, what it ended with, and how to stop its run. */
export interface TaskRecord<End> {
  /** Compared by identity (`===`): a session object, or a caller identity string. */
  readonly owner: unknown;
  state: TaskState;
  /** What the task ended with (its result, or its error), once terminal. */
  end?: End;
  /** Stops the task's run; set once the run has started. */
  cancel?: () => void;
  expiry: NodeJS.Timeout;
}

/** Every task of one kind (one era's, on one host), by id. */
export class TaskRecords<End> {
  private readonly records = new Map<string, TaskRecord<End>>();

  /** `onDrop` runs for each record that leaves (expired, dropped for a newer one, or forgotten). */
  constructor(private readonly onDrop?: (record: TaskRecord<End>) => void) {}

  /** The record `taskId` if `owner` created it; undefined otherwise (never existed, expired, or another owner's). */
  find(taskId: string, owner: unknown): TaskRecord<End> | undefined {
    const record = this.records.get(taskId);
    return record !== undefined && record.owner === owner ? record : undefined;
  }

  /** `owner`'s tasks, oldest first. */
  of(owner: unknown): TaskRecord<End>[] {
    return [...this.records.values()].filter((r) => r.owner === owner);
  }

  /** Tasks of every owner not ended yet. */
  get running(): number {
    let count = 0;
    for (const r of this.records.values()) if (!isTerminal(r.state.status)) count += 1;
    return count;
  }

  /**
   * Why `owner` may not create another task now, or undefined — making room by dropping its
   * oldest finished task when it holds {@link MAX_TASKS_PER_OWNER}.
   */
  refusal(owner: unknown, who: string): string | undefined {
    const mine = this.of(owner);
    if (mine.length < MAX_TASKS_PER_OWNER) return undefined;
    const finished = mine.find((r) => isTerminal(r.state.status));
    if (finished === undefined) return `${who} has ${MAX_TASKS_PER_OWNER} tasks running (serve's cap); wait for one to finish or cancel one`;
    this.remove(finished.state.taskId);
    return undefined;
  }

  /**
   * A new `working` task of `owner`, living `ttl` ms (capped by {@link MAX_TASK_TTL_MS}); at
   * its expiry a task still running is cancelled (nobody could read its result any more) and
   * the record is dropped.
   */
  create(owner: unknown, ttl?: number): TaskRecord<End> {
    const taskId = `task_${randomBytes(TASK_ID_BYTES).toString('base64url')}`;
    const lives = Math.min(typeof ttl === 'number' && ttl > 0 ? Math.floor(ttl) : MAX_TASK_TTL_MS, MAX_TASK_TTL_MS);
    const now = new Date().toISOString();
    const expiry = setTimeout(() => {
      const record = this.records.get(taskId);
      if (record !== undefined && !isTerminal(record.state.status)) record.cancel?.();
      this.remove(taskId);
    }, lives);
    expiry.unref();
    const record: TaskRecord<End> = {
      owner,
      state: { taskId, status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: lives, pollIntervalMs: TASK_POLL_INTERVAL_MS },
      expiry,
    };
    this.records.set(taskId, record);
    return record;
  }

  /**
   * Takes in a task created elsewhere (another instance on the same store; its state as stored):
   * it keeps its id, creation time and ttl, and is `working` here until its original expiry.
   */
  adopt(owner: unknown, state: TaskState): TaskRecord<End> {
    const { statusMessage: _old, ...rest } = state;
    const lives = Math.max(1, Math.min(Date.parse(state.createdAt) + state.ttlMs - Date.now(), MAX_TASK_TTL_MS));
    const expiry = setTimeout(() => {
      const record = this.records.get(state.taskId);
      if (record !== undefined && !isTerminal(record.state.status)) record.cancel?.();
      this.remove(state.taskId);
    }, lives);
    expiry.unref();
    const record: TaskRecord<End> = { owner, state: { ...rest, status: 'working', lastUpdatedAt: new Date().toISOString() }, expiry };
    this.records.set(state.taskId, record);
    return record;
  }

  /**
   * Moves `record` to `status` (with `end` when it ends), unless it already ended: the first
   * end wins (a client's cancel before the run's own end, or the other way round). Returns
   * whether it moved.
   */
  move(record: TaskRecord<End>, status: TaskStatus, end?: End, message?: string): boolean {
    if (isTerminal(record.state.status)) return false;
    if (record.state.status === status && end === undefined && message === undefined) return false;
    const { statusMessage: _old, ...rest } = record.state;
    record.state = { ...rest, status, lastUpdatedAt: new Date().toISOString(), ...(message !== undefined ? { statusMessage: message } : {}) };
    if (end !== undefined) record.end = end;
    return true;
  }

  remove(taskId: string): void {
    const record = this.records.get(taskId);
    if (record === undefined) return;
    clearTimeout(record.expiry);
    this.records.delete(taskId);
    this.onDrop?.(record);
  }

  /** Drops every task of `owner` (its session ended). */
  forget(owner: unknown): void {
    for (const record of this.of(owner)) this.remove(record.state.taskId);
  }
}
