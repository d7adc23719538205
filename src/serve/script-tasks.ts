/**
 * `code_execution` as an MCP task (MCP 2025-11-25 tasks, the SDK's experimental task support):
 * a client that sends `tools/call` with `params.task` gets a `CreateTaskResult` at once while
 * the script runs as a background script (`background: true, wait_ms: 0`); `tasks/get`
 * reports the script's state, `tasks/result` its result, `tasks/cancel` cancels it.
 *
 * This file owns the task records and the SDK's `TaskStore` over them. The records of a host
 * live in one map, but each serve session's store answers only for the tasks that session
 * created: another session's task id is answered exactly as an id that never existed (the SDK
 * turns a null into "Task not found"). Tenants never meet.
 *
 * Approval waits are not surfaced as `input_required`: a script waiting for a person stays
 * `working` (the approval itself reaches the client as today, as an elicitation).
 */
import { randomBytes } from 'node:crypto';
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { DEFAULT_BACKGROUND_RESULT_MS, DEFAULT_MAX_BACKGROUND_SCRIPTS } from '../code-execution/background/registry.ts';

/**
 * Tasks one serve session holds at once, running and finished: the host's cap on running
 * background scripts (16). Past it the oldest finished task is dropped; with every one still
 * running, a new task-augmented call is refused.
 */
export const MAX_TASKS_PER_SESSION = DEFAULT_MAX_BACKGROUND_SCRIPTS;
/** Longest a task (and its kept result) lives after it was created: the background result time, 10 minutes. A client's smaller `ttl` wins. */
export const MAX_TASK_TTL_MS = DEFAULT_BACKGROUND_RESULT_MS;
/** Poll interval suggested to clients (ms): `tasks/result` also waits in steps of it. */
export const TASK_POLL_INTERVAL_MS = 500;
/** Random bytes in a task id (144 bits): not guessable, not derived from the scriptId. */
const TASK_ID_BYTES = 18;

interface TaskRecord {
  owner: ServeTaskOwner;
  task: Task;
  result?: Result;
  /** Cancels the task's script; set once the script has started. */
  cancel?: () => void;
  expiry: NodeJS.Timeout;
}

/** The serve session a task belongs to (compared by identity). */
export type ServeTaskOwner = object;

/** What serve declares under `capabilities.tasks`: list, cancel, and task-augmented `tools/call`. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;

const tasksOfHost = new WeakMap<object, ScriptTasks>();

/** The task records of `host` (one map per host, made on first use). */
export function scriptTasksOf(host: object): ScriptTasks {
  let tasks = tasksOfHost.get(host);
  if (tasks === undefined) tasksOfHost.set(host, (tasks = new ScriptTasks()));
  return tasks;
}

/** Every task of one host, by id. */
export class ScriptTasks {
  private readonly records = new Map<string, TaskRecord>();

  /** The store the SDK server of `owner`'s session uses: it sees `owner`'s tasks only. */
  storeFor(owner: ServeTaskOwner): SessionTaskStore {
    return new SessionTaskStore(this, owner);
  }

  /** The record `taskId` if `owner` created it; undefined otherwise (never existed, expired, or another session's). */
  find(taskId: string, owner: ServeTaskOwner): TaskRecord | undefined {
    const record = this.records.get(taskId);
    return record !== undefined && record.owner === owner ? record : undefined;
  }

  /** `owner`'s tasks, oldest first. */
  of(owner: ServeTaskOwner): TaskRecord[] {
    return [...this.records.values()].filter((r) => r.owner === owner);
  }

  add(id: string, record: TaskRecord): void {
    this.records.set(id, record);
  }

  remove(taskId: string): void {
    const record = this.records.get(taskId);
    if (record === undefined) return;
    clearTimeout(record.expiry);
    this.records.delete(taskId);
  }

  /** Drops every task of `owner` (its session ended; its scripts end with its conversations). */
  forget(owner: ServeTaskOwner): void {
    for (const record of this.of(owner)) this.remove(record.task.taskId);
  }
}

function terminal(status: Task['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The SDK `TaskStore` of one serve session, plus what tool-server.ts needs to bind a task to its script. */
export class SessionTaskStore implements TaskStore {
  constructor(
    private readonly all: ScriptTasks,
    private readonly owner: ServeTaskOwner,
  ) {}

  /** Why this session may not create another task now, or undefined (drops its oldest finished task when full). */
  refusal(): string | undefined {
    const mine = this.all.of(this.owner);
    if (mine.length < MAX_TASKS_PER_SESSION) return undefined;
    const finished = mine.find((r) => terminal(r.task.status));
    if (finished === undefined) return `this session has ${MAX_TASKS_PER_SESSION} tasks running (serve's cap per session); wait for one to finish or cancel one`;
    this.all.remove(finished.task.taskId);
    return undefined;
  }

  async createTask(options: CreateTaskOptions, _requestId: RequestId, _request: Request): Promise<Task> {
    return this.create(options.ttl ?? undefined);
  }

  /** A new `working` task of this session; `ttl` (ms) is capped by {@link MAX_TASK_TTL_MS}. */
  create(ttl: number | undefined): Task {
    const taskId = `task_${randomBytes(TASK_ID_BYTES).toString('base64url')}`;
    const lives = Math.min(typeof ttl === 'number' && ttl > 0 ? ttl : MAX_TASK_TTL_MS, MAX_TASK_TTL_MS);
    const now = new Date().toISOString();
    const task: Task = { taskId, status: 'working', ttl: lives, createdAt: now, lastUpdatedAt: now, pollInterval: TASK_POLL_INTERVAL_MS };
    const expiry = setTimeout(() => {
      // An expired task that still runs is cancelled: nobody can read its result any more.
      const record = this.all.find(taskId, this.owner);
      if (record !== undefined && !terminal(record.task.status)) record.cancel?.();
      this.all.remove(taskId);
    }, lives);
    expiry.unref();
    this.all.add(taskId, { owner: this.owner, task, expiry });
    return task;
  }

  /** Binds the task to its running script's cancel (the `tasks/cancel` route). */
  bind(taskId: string, cancel: () => void): void {
    const record = this.all.find(taskId, this.owner);
    if (record !== undefined) record.cancel = cancel;
  }

  /** Sets a task's end state (from its script), unless it already ended (a client's cancel wins). */
  settle(taskId: string, status: 'completed' | 'failed' | 'cancelled', result: Result | undefined, message?: string): void {
    const record = this.all.find(taskId, this.owner);
    if (record === undefined || terminal(record.task.status)) return;
    record.task = { ...record.task, status, lastUpdatedAt: new Date().toISOString(), ...(message !== undefined ? { statusMessage: message } : {}) };
    if (result !== undefined) record.result = result;
  }

  async getTask(taskId: string): Promise<Task | null> {
    return this.all.find(taskId, this.owner)?.task ?? null;
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result): Promise<void> {
    this.settle(taskId, status, result);
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const record = this.all.find(taskId, this.owner);
    if (record === undefined) throw new Error(`Task not found: ${taskId}`);
    if (record.result === undefined) throw new Error(`Task ${taskId} has no result (${record.task.status})`);
    return record.result;
  }

  /** The SDK's `tasks/cancel` lands here with `cancelled`: the task's script is cancelled. */
  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void> {
    const record = this.all.find(taskId, this.owner);
    if (record === undefined) throw new Error(`Task not found: ${taskId}`);
    if (terminal(record.task.status)) return;
    record.task = { ...record.task, status, lastUpdatedAt: new Date().toISOString(), ...(statusMessage !== undefined ? { statusMessage } : {}) };
    if (status === 'cancelled') record.cancel?.();
  }

  async listTasks(): Promise<{ tasks: Task[]; nextCursor?: string }> {
    // At most MAX_TASKS_PER_SESSION: one page.
    return { tasks: this.all.of(this.owner).map((r) => r.task) };
  }
}
