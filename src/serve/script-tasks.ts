/**
 * `code_execution` (and, through the gateway, a provider's task tool: gateway-tasks.ts) as an
 * MCP task (MCP 2025-11-25 tasks, the SDK's experimental task support):
 * a client that sends `tools/call` with `params.task` gets a `CreateTaskResult` at once while
 * the script runs as a background script (`background: true, wait_ms: 0`); `tasks/get`
 * reports the script's state, `tasks/result` its result, `tasks/cancel` cancels it.
 *
 * This file owns the SDK's `TaskStore` over the shared task records (task-records.ts, also
 * used by the 2026 endpoint's tasks extension). The records of a host live in one map, but each
 * serve session's store answers only for the tasks that session created: another session's
 * task id is answered exactly as an id that never existed (the SDK turns a null into "Task not
 * found"). Tenants never meet.
 *
 * Approval waits are not surfaced as `input_required`: a script waiting for a person stays
 * `working` (the approval itself reaches the client as today, as an elicitation).
 */
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import { isTerminal, MAX_TASK_TTL_MS as SHARED_TTL_MS, MAX_TASKS_PER_OWNER, TASK_POLL_INTERVAL_MS as SHARED_POLL_MS, TaskRecords, type TaskRecord } from './task-records.ts';

/**
 * Tasks one serve session holds at once, running and finished (task-records.ts: the host's cap
 * on running background scripts, 16). Past it the oldest finished task is dropped; with every
 * one still running, a new task-augmented call is refused.
 */
export const MAX_TASKS_PER_SESSION = MAX_TASKS_PER_OWNER;
/** Longest a task (and its kept result) lives after it was created: 10 minutes. A client's smaller `ttl` wins. */
export const MAX_TASK_TTL_MS = SHARED_TTL_MS;
/** Poll interval suggested to clients (ms): `tasks/result` also waits in steps of it. */
export const TASK_POLL_INTERVAL_MS = SHARED_POLL_MS;

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

/** Every 2025-era task of one host, by id: the shared records, owned by sessions. */
export class ScriptTasks {
  readonly records = new TaskRecords<Result>();

  /** The store the SDK server of `owner`'s session uses: it sees `owner`'s tasks only. */
  storeFor(owner: ServeTaskOwner): SessionTaskStore {
    return new SessionTaskStore(this.records, owner);
  }

  /** Drops every task of `owner` (its session ended; its scripts end with its conversations). */
  forget(owner: ServeTaskOwner): void {
    this.records.forget(owner);
  }
}

/** The 2025 wire's `Task` of a record. */
function taskOf(record: TaskRecord<Result>): Task {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = record.state;
  return { taskId, status, ttl: ttlMs, createdAt, lastUpdatedAt, pollInterval: pollIntervalMs, ...(statusMessage !== undefined ? { statusMessage } : {}) };
}

/** The SDK `TaskStore` of one serve session, plus what tool-server.ts needs to bind a task to its script. */
export class SessionTaskStore implements TaskStore {
  constructor(
    private readonly all: TaskRecords<Result>,
    private readonly owner: ServeTaskOwner,
  ) {}

  /** Why this session may not create another task now, or undefined (drops its oldest finished task when full). */
  refusal(): string | undefined {
    return this.all.refusal(this.owner, 'this session');
  }

  async createTask(options: CreateTaskOptions, _requestId: RequestId, _request: Request): Promise<Task> {
    return this.create(options.ttl ?? undefined);
  }

  /** A new `working` task of this session; `ttl` (ms) is capped by {@link MAX_TASK_TTL_MS}. */
  create(ttl: number | undefined): Task {
    return taskOf(this.all.create(this.owner, ttl));
  }

  /** Binds the task to its running script's cancel (the `tasks/cancel` route). */
  bind(taskId: string, cancel: () => void): void {
    const record = this.all.find(taskId, this.owner);
    if (record !== undefined) record.cancel = cancel;
  }

  /** Whether `taskId` is one of this session's tasks (the task message queue takes messages for these only). */
  owns(taskId: string): boolean {
    return this.all.find(taskId, this.owner) !== undefined;
  }

  /**
   * Moves a running task between `working` and `input_required`, or changes its status message
   * (a gateway task follows its call: gateway-tasks.ts); an ended task stays as it ended.
   */
  mark(taskId: string, status: 'working' | 'input_required', message?: string): void {
    const record = this.all.find(taskId, this.owner);
    if (record !== undefined) this.all.move(record, status, undefined, message ?? record.state.statusMessage);
  }

  /** Sets a task's end state (from its script), unless it already ended (a client's cancel wins). */
  settle(taskId: string, status: 'completed' | 'failed' | 'cancelled', result: Result | undefined, message?: string): void {
    const record = this.all.find(taskId, this.owner);
    if (record !== undefined) this.all.move(record, status, result, message);
  }

  async getTask(taskId: string): Promise<Task | null> {
    const record = this.all.find(taskId, this.owner);
    return record !== undefined ? taskOf(record) : null;
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result): Promise<void> {
    this.settle(taskId, status, result);
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const record = this.all.find(taskId, this.owner);
    if (record === undefined) throw new Error(`Task not found: ${taskId}`);
    if (record.end === undefined) throw new Error(`Task ${taskId} has no result (${record.state.status})`);
    return record.end;
  }

  /** The SDK's `tasks/cancel` lands here with `cancelled`: the task's script is cancelled. */
  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void> {
    const record = this.all.find(taskId, this.owner);
    if (record === undefined) throw new Error(`Task not found: ${taskId}`);
    if (isTerminal(record.state.status)) return;
    this.all.move(record, status, undefined, statusMessage);
    if (status === 'cancelled') record.cancel?.();
  }

  async listTasks(): Promise<{ tasks: Task[]; nextCursor?: string }> {
    // At most MAX_TASKS_PER_SESSION: one page.
    return { tasks: this.all.of(this.owner).map(taskOf) };
  }
}
