/**
 * The MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, revision 2026-07-28) on
 * serve's stateless endpoint, for `code_execution` and a provider's task tool through the
 * gateway (serve/gateway-tasks.ts): a client that declares the extension in a
 * `tools/call`'s `_meta` capabilities gets a `CreateTaskResult` (`resultType: "task"`) at once
 * while its script runs on; `tasks/get` polls (the final `CallToolResult`, or the JSON-RPC
 * error, inside once it ended), `tasks/update` answers what the task asks, `tasks/cancel`
 * cancels. No `tasks/list` and no `tasks/result` (the revision removed both: "method not found").
 * A `subscriptions/listen` naming `taskIds` gets `notifications/tasks` for the caller's own.
 *
 * The run is the same {@link Exchange} a synchronous 2026 call gets — the same SDK server code,
 * dispatch path and gates — kept going after the answer, with the session it runs in held until
 * the task ends. A request the run sends its client (toolcell's approval, a provider's
 * elicitation) makes the task `input_required` with that request under a key unique over the
 * task's life; `tasks/update` delivers the answer to exactly that request. Fail closed: an answer
 * that is not an elicitation result is delivered as a decline, an unanswered request is declined
 * when the approvals' answer time or the task's life runs out, and a cancel declines it too.
 *
 * Whose task it is: the caller identity of the request that created it (serve's authorization
 * context: the bearer token's digest when serve checks one, else the peer's address; stdio has
 * one caller). Its id is 144 random bits; another caller presenting it gets exactly the
 * unknown-id answer. Records, ids, the per-caller cap and the life of a task are shared with the
 * 2025 era (task-records.ts).
 *
 * With a store (stored-tasks.ts), each status change is also written to the store, so any
 * instance on it answers `tasks/get` (for the same caller only), `tasks/cancel` at any instance
 * ends the task and stops its run within one lease renewal, and a task whose instance stopped
 * reads `failed`. A task whose run waits only for toolcell's own approval is parked: its run is
 * stored as a durable pause (durable.ts, the same journal and digest checks as a retry of the
 * era), the instance lets go of it, and the `tasks/update` that answers it — at any instance —
 * resumes it by replay there. Any other pending request (a provider's elicitation, a pause that
 * cannot be stored) stays in the memory of the instance running it: a `tasks/update` elsewhere
 * is refused with {@link TASK_ELSEWHERE} and delivers nothing.
 */
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { RunRecord } from '../../store/journal.ts';
import { isTerminal, TaskRecords, type TaskRecord, type TaskState, type TaskStatus } from '../task-records.ts';
import type { Exchange, InputRequest } from './exchange.ts';
import type { DetailedTask, ResumeInfo, StoredTasks } from './stored-tasks.ts';
import type { DurablePauses, TakenRun } from './durable.ts';
import { bindingOf } from './suspended.ts';
import { ErrorCodes, ModernError, type RequestMeta } from './wire.ts';

/** The extension's identifier, in client capabilities and in serve's `server/discover`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The extension's methods; without the extension declared, each is refused with -32021. */
export const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/** Tasks running at once over every caller (each holds a session and its script's engine while it runs). */
export const MAX_RUNNING_TASKS = 64;
/**
 * Bytes of one task's kept result (its JSON): above code_execution's default content cap (4 MiB)
 * so an ordinary result fits. A larger result is replaced by an error result saying so.
 */
export const MAX_TASK_RESULT_BYTES = 8 * 1024 * 1024;
/** Bytes of finished results one caller keeps at once; past it that caller's oldest finished tasks are dropped. */
export const MAX_TASK_RESULT_BYTES_PER_CALLER = 16 * 1024 * 1024;

/**
 * The JSON-RPC error of a `tasks/update` for a task running at another instance on the same
 * store: its pending requests are held there, so nothing was delivered (send it again; the
 * balancer must route it to the instance running the task). Fail closed: the request waits, and
 * is declined when its answer time runs out.
 */
export const TASK_ELSEWHERE = -32003;

/** With a store: how parked tasks are stored and resumed (the endpoint starts the resumed exchange). */
export interface TaskResumes {
  pauses: DurablePauses;
  /** Starts the stored request's exchange again, resuming `record` by replay; `release` ends its session. */
  reopen(resume: ResumeInfo, record: RunRecord): Promise<{ exchange: Exchange; release: () => void }>;
  logger: Logger;
}

/** What a task ended with: the call's result, or the JSON-RPC error it failed with. */
interface TaskEnd {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  bytes: number;
}

/** The JSON-RPC error a client that did not declare the extension gets for a task method. */
export function missingTasksCapability(): ModernError {
  return new ModernError(ErrorCodes.missingClientCapability, 'Missing required client capability: the io.modelcontextprotocol/tasks extension', 400, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/** Whether a request's `_meta` client capabilities declare the extension. */
export function declaresTasks(meta: RequestMeta): boolean {
  const extensions = meta.capabilities.extensions;
  const entry = extensions && typeof extensions === 'object' ? (extensions as Record<string, unknown>)[TASKS_EXTENSION] : undefined;
  return typeof entry === 'object' && entry !== null;
}

const unknownTask = (): ModernError => new ModernError(ErrorCodes.invalidParams, 'Failed to retrieve task: Task not found', 400);

/** The `taskId` a task method names. */
function taskIdOf(request: JSONRPCRequest): string {
  const taskId = (request.params as { taskId?: unknown } | undefined)?.taskId;
  if (typeof taskId !== 'string') throw new ModernError(ErrorCodes.invalidParams, 'Invalid params: taskId (a string) is required', 400);
  return taskId;
}

/** An answer to an elicitation as the SDK server accepts it; anything else becomes a decline (fail closed). */
function elicitationAnswer(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { action: 'decline' };
  const { action, content } = value as { action?: unknown; content?: unknown };
  if (action === 'decline' || action === 'cancel') return { action };
  if (action !== 'accept') return { action: 'decline' };
  if (content !== undefined && (typeof content !== 'object' || content === null || Array.isArray(content))) return { action: 'decline' };
  return { action, ...(content !== undefined ? { content } : {}) };
}

/** The 2026 tasks of one serve endpoint. */
export class ModernTasks {
  private readonly records = new TaskRecords<TaskEnd>();
  private readonly exchanges = new WeakMap<TaskRecord<TaskEnd>, Exchange>();
  /** Status listeners (`subscriptions/listen` streams asking for `notifications/tasks`). */
  private readonly watchers = new Set<(record: TaskRecord<TaskEnd>) => void>();
  /** Records whose run is still going (walked when serve stops). */
  private readonly live = new Set<TaskRecord<TaskEnd>>();

  /** The `_meta` of the request each task runs for (stored with a parked task, to resume it). */
  private readonly metas = new WeakMap<TaskRecord<TaskEnd>, RequestMeta>();

  /**
   * `stored`: with a store, tasks are written there too and read from it when not held here;
   * `resumes`: and a task waiting for toolcell's approval is parked there (resumed anywhere).
   */
  constructor(
    private readonly stored?: StoredTasks,
    private readonly resumes?: TaskResumes,
  ) {}

  /** Why `caller` may not start another task now, or undefined (drops its oldest finished task when it holds the cap). */
  refusal(caller: string): string | undefined {
    if (this.records.running >= MAX_RUNNING_TASKS) return `serve runs ${MAX_RUNNING_TASKS} tasks already (its cap over all clients); try again later`;
    return this.records.refusal(caller, 'this client');
  }

  /**
   * Makes `exchange` (its call already sent) a task of `caller` and returns the
   * `CreateTaskResult`; the run goes on in the background, and `release` runs once it ended.
   * With a store the task's row is written before the answer (any instance then knows the id).
   */
  async start(caller: string, exchange: Exchange, meta: RequestMeta, release: () => void): Promise<Record<string, unknown>> {
    const record = this.records.create(caller);
    this.exchanges.set(record, exchange);
    this.metas.set(record, meta);
    record.cancel = () => void exchange.close('the task was cancelled');
    const written = this.stored?.started(caller, this.detailed(record), (message) => {
      if (this.move(record, 'cancelled', undefined, message)) record.cancel?.();
    });
    void this.drive(record, exchange).finally(release);
    await written;
    return { resultType: 'task', ...record.state };
  }

  /**
   * `tasks/get`: the task as the extension's `DetailedTask` (status-specific fields inline) —
   * held here, or (with a store) as its row says; a held task cancelled at another instance is
   * stopped now.
   */
  async get(caller: string, request: JSONRPCRequest): Promise<Record<string, unknown>> {
    const taskId = taskIdOf(request);
    const record = this.records.find(taskId, caller);
    if (record !== undefined && !isTerminal(record.state.status)) await this.stored?.endedElsewhere(taskId);
    // Found again after the read: a task parked meanwhile left here with its exchange, so its
    // record would say input_required without its requests (issue 43); its row has them.
    const held = this.records.find(taskId, caller);
    if (held !== undefined) return { resultType: 'complete', ...this.detailed(held) };
    return { resultType: 'complete', ...(await this.fromStore(taskId, caller)) };
  }

  /**
   * The tasks among `taskIds` that `caller` owns (a `subscriptions/listen` asking for their
   * `notifications/tasks`): another caller's id is left out exactly as an unknown one.
   */
  owned(caller: string, taskIds: readonly unknown[]): string[] {
    return taskIds.filter((id): id is string => typeof id === 'string' && this.records.find(id, caller) !== undefined);
  }

  /**
   * Calls `listener` with the `DetailedTask` of each of `caller`'s tasks `taskIds` whenever its
   * status changes, until the returned function is called.
   */
  watch(caller: string, taskIds: readonly string[], listener: (task: Record<string, unknown>) => void): () => void {
    const wanted = new Set(taskIds);
    const watcher = (record: TaskRecord<TaskEnd>) => {
      if (record.owner === caller && wanted.has(record.state.taskId)) listener(this.detailed(record));
    };
    this.watchers.add(watcher);
    return () => void this.watchers.delete(watcher);
  }

  private detailed(record: TaskRecord<TaskEnd>): DetailedTask {
    const detailed: DetailedTask = { ...record.state };
    if (record.state.status === 'input_required') detailed.inputRequests = this.inputRequests(record);
    if (record.end?.result !== undefined) detailed.result = record.end.result;
    if (record.end?.error !== undefined) detailed.error = record.end.error;
    return detailed;
  }

  /** Moves a task (task-records.ts: the first end wins) and tells whoever watches it. */
  private move(record: TaskRecord<TaskEnd>, status: TaskStatus, end?: TaskEnd, message?: string): boolean {
    if (!this.records.move(record, status, end, message)) return false;
    for (const watcher of this.watchers) watcher(record);
    this.stored?.moved(this.detailed(record));
    return true;
  }

  /**
   * `tasks/update`: delivers each response whose key is outstanding now (others are ignored,
   * as the extension says); an elicitation answer that is not one is delivered as a decline.
   * A task running at another instance (with a store) is refused with {@link TASK_ELSEWHERE}.
   */
  async update(caller: string, request: JSONRPCRequest): Promise<Record<string, unknown>> {
    const taskId = taskIdOf(request);
    const responses = (request.params as { inputResponses?: unknown } | undefined)?.inputResponses;
    const record = this.records.find(taskId, caller);
    if (record === undefined) {
      const parked = this.resumes ? await this.stored?.parked(taskId, caller) : undefined;
      if (parked !== undefined) return this.resume(caller, parked.task, parked.resume, responses);
      const task = await this.fromStore(taskId, caller);
      if (isTerminal(task.status)) return { resultType: 'complete' };
      throw new ModernError(TASK_ELSEWHERE, `task ${taskId} runs at another instance of this server, which holds its pending requests: nothing was delivered; send tasks/update again (your load balancer must route it to the instance running the task). Unanswered, its requests are declined when their answer time runs out`, 409);
    }
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
      throw new ModernError(ErrorCodes.invalidParams, 'Invalid params: tasks/update needs inputResponses (an object keyed by the inputRequests it answers)', 400);
    }
    const exchange = this.exchanges.get(record);
    if (exchange !== undefined && !isTerminal(record.state.status)) {
      for (const [key, value] of Object.entries(responses as Record<string, unknown>)) {
        const asked = exchange.pending.get(key);
        if (asked === undefined) continue;
        exchange.answer(key, asked.method === 'elicitation/create' ? elicitationAnswer(value) : value);
      }
      if (exchange.pending.size === 0) this.move(record, 'working');
    }
    return { resultType: 'complete' };
  }

  /**
   * `tasks/cancel`: a task not ended yet is cancelled now and its run stopped (an approval it
   * waits for is declined). With a store, a task running at another instance is cancelled in
   * the store at once, and its run stops at that instance's next lease renewal (stored-tasks.ts).
   */
  async cancel(caller: string, request: JSONRPCRequest): Promise<Record<string, unknown>> {
    const taskId = taskIdOf(request);
    const record = this.records.find(taskId, caller);
    if (record !== undefined) {
      if (this.move(record, 'cancelled', undefined, 'cancelled by the client')) record.cancel?.();
    } else {
      const cancelled = await this.stored?.cancel(taskId, caller, 'cancelled by the client');
      if (cancelled === undefined || cancelled.outcome === 'unknown') throw unknownTask();
      // A parked task's stored run goes too: no tasks/update can resume it any more.
      if (cancelled.runId !== undefined) await this.resumes?.pauses.forget(cancelled.runId);
    }
    return { resultType: 'complete' };
  }

  /**
   * `tasks/update` of a parked task (at any instance): the answers to its pending approvals
   * (malformed ones as declines) take its stored run — once over every instance — and the run
   * resumes here by replay; the resumed run's approvals are answered digest for digest
   * (durable.ts). No answer for a pending key: ignored. Taken already (another `tasks/update`
   * won) or cancelled meanwhile: nothing is delivered here.
   */
  private async resume(caller: string, task: DetailedTask, resume: ResumeInfo, responses: unknown): Promise<Record<string, unknown>> {
    const resumes = this.resumes!;
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) {
      throw new ModernError(ErrorCodes.invalidParams, 'Invalid params: tasks/update needs inputResponses (an object keyed by the inputRequests it answers)', 400);
    }
    const asked = (task.inputRequests ?? {}) as Record<string, { method?: unknown }>;
    const answers: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(responses as Record<string, unknown>)) {
      if (!Object.hasOwn(asked, key)) continue;
      answers[key] = asked[key]!.method === 'elicitation/create' ? elicitationAnswer(value) : value;
    }
    if (Object.keys(answers).length === 0) {
      resumes.logger.info({ taskId: task.taskId, keys: Object.keys(responses as object) }, 'a tasks/update of a parked task answered none of its pending requests: ignored');
      return { resultType: 'complete' };
    }
    const refused = this.refusal(caller);
    if (refused !== undefined) throw new ModernError(-32000, refused, 429);
    const taken = await resumes.pauses.take(resume.runId, bindingOf(resume.request.method, resume.request.params), answers);
    if (typeof taken === 'string') {
      resumes.logger.info({ taskId: task.taskId, reason: taken }, 'a parked task was not resumed here');
      return { resultType: 'complete' };
    }
    const state: TaskState = {
      taskId: task.taskId, status: task.status, createdAt: task.createdAt, ttlMs: task.ttlMs,
      lastUpdatedAt: String(task.lastUpdatedAt), pollIntervalMs: Number(task.pollIntervalMs),
    };
    const record = this.records.adopt(caller, state);
    const done = () => void resumes.pauses.forget(resume.runId);
    const adopted = await this.stored!.adopt(caller, this.detailed(record), (message) => {
      if (this.move(record, 'cancelled', undefined, message)) record.cancel?.();
    });
    if (!adopted) {
      // Cancelled (or expired) between the read and now: it must not run.
      resumes.logger.info({ taskId: task.taskId }, 'a parked task ended before it could be resumed here: it does not run');
      this.records.remove(task.taskId);
      done();
      return { resultType: 'complete' };
    }
    let reopened: { exchange: Exchange; release: () => void };
    try {
      reopened = await resumes.reopen(resume, taken.record);
    } catch (error) {
      const message = `the parked task could not be resumed: ${(error as Error).message}`;
      this.move(record, 'failed', { error: { code: -32603, message }, bytes: 0 }, message);
      done();
      return { resultType: 'complete' };
    }
    const { exchange, release } = reopened;
    this.exchanges.set(record, exchange);
    this.metas.set(record, resume.meta);
    record.cancel = () => void exchange.close('the task was cancelled');
    void this.drive(record, exchange, taken).finally(() => {
      release();
      done();
    });
    return { resultType: 'complete' };
  }

  /**
   * With a store, a run waiting only for toolcell's approvals is parked: stored as a durable
   * pause (durable.ts), the task's row told how to resume it, and the run ended here. Returns
   * whether it was (else the run waits in memory, as without a store).
   */
  private async park(record: TaskRecord<TaskEnd>, exchange: Exchange, requests: ReadonlyMap<string, InputRequest>): Promise<boolean> {
    const resumes = this.resumes;
    const meta = this.metas.get(record);
    if (resumes === undefined || this.stored === undefined || meta === undefined) return false;
    const runId = await resumes.pauses.park(bindingOf(exchange.request.method, exchange.request.params), requests);
    if (runId === undefined) return false;
    // The store answers for it from now on (a tasks/update here meanwhile must not answer the
    // closing exchange): the record leaves first, then the row is parked.
    this.records.remove(record.state.taskId);
    if (this.records.move(record, 'input_required')) for (const watcher of this.watchers) watcher(record);
    const params = (exchange.request.params ?? {}) as Record<string, unknown>;
    // The requests the stored approvals are keyed by (not the exchange's live view, which its close empties).
    const inputRequests = Object.fromEntries([...requests].map(([key, r]) => [key, { method: r.method, ...(r.params !== undefined ? { params: r.params } : {}) }]));
    const parked = await this.stored.park({ ...this.detailed(record), inputRequests }, { runId, request: { id: exchange.request.id, method: exchange.request.method, params }, meta });
    if (!parked) {
      // The run is frozen for the store already: it cannot go on here either (fail closed).
      await resumes.pauses.forget(runId);
      const message = 'the task waits for approval, but its row could not be written to the store; it was stopped';
      this.move(record, 'failed', { error: { code: -32603, message }, bytes: 0 }, message);
      return true;
    }
    // The answer resumes it by replay wherever it arrives.
    await exchange.close('the run was paused and stored; it resumes by replay');
    return true;
  }

  /** Stops every task's run (serve is stopping; with a store, each ends there as cancelled); their records go with the process. */
  async close(): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const record of [...this.live]) {
      if (this.move(record, 'cancelled', undefined, 'the server is shutting down')) closing.push(this.exchanges.get(record)?.close('the server is shutting down') ?? Promise.resolve());
    }
    await Promise.all(closing);
    await this.stored?.close();
  }

  /** The task `taskId` of `caller` as the store has it; the unknown-id answer without a store, a row, or for another caller's. */
  private async fromStore(taskId: string, caller: string): Promise<DetailedTask> {
    const task = await this.stored?.read(taskId, caller);
    if (task === undefined) throw unknownTask();
    return task;
  }

  private inputRequests(record: TaskRecord<TaskEnd>): Record<string, { method: string; params?: Record<string, unknown> }> {
    const pending: ReadonlyMap<string, InputRequest> = this.exchanges.get(record)?.pending ?? new Map();
    return Object.fromEntries([...pending].map(([key, r]) => [key, { method: r.method, ...(r.params !== undefined ? { params: r.params } : {}) }]));
  }

  /**
   * Follows the run to its end: each request it sends makes the task `input_required` (or, with
   * a store, parks it); its answer ends it. A resumed run (`taken`) gets the approvals it asks
   * again answered from the client's answers, digest for digest, or is refused.
   */
  private async drive(record: TaskRecord<TaskEnd>, exchange: Exchange, taken?: TakenRun): Promise<void> {
    this.live.add(record);
    try {
      for (;;) {
        // Progress and log messages are not carried on tasks (the extension says so): a progress
        // message becomes the task's statusMessage (a gateway task: the provider task's own), the rest is dropped.
        const outcome = await exchange.next((n) => {
          const message = n.method === 'notifications/progress' ? (n.params as { message?: unknown } | undefined)?.message : undefined;
          if (typeof message === 'string' && message !== record.state.statusMessage) this.move(record, record.state.status, undefined, message);
        });
        if (outcome.kind === 'input') {
          if (taken !== undefined && taken.answers.size > 0 && this.resumes !== undefined) {
            const answered = this.resumes.pauses.answer(exchange, outcome.requests, taken);
            if (typeof answered === 'string') {
              this.move(record, 'failed', { error: { code: -32000, message: answered }, bytes: 0 }, answered);
              return;
            }
            if (answered > 0) continue;
          }
          if (await this.park(record, exchange, outcome.requests)) return;
          this.move(record, 'input_required');
          continue;
        }
        const message = outcome.message;
        if ('result' in message) {
          const { resultType: _r, ...result } = message.result;
          this.move(record, 'completed', this.bounded(record, result));
        } else {
          this.move(record, 'failed', { error: message.error, bytes: 0 }, message.error.message);
        }
        return;
      }
    } catch (error) {
      // The exchange was closed: the task was cancelled or expired (already moved), or serve stops.
      this.move(record, 'cancelled', undefined, (error as Error).message);
    } finally {
      // The ended run's server and requests are not kept for the record's remaining life.
      this.live.delete(record);
      this.exchanges.delete(record);
      await exchange.close('the task ended');
    }
  }

  /** The result kept for a task: within {@link MAX_TASK_RESULT_BYTES}, and its caller's kept results within {@link MAX_TASK_RESULT_BYTES_PER_CALLER}. */
  private bounded(record: TaskRecord<TaskEnd>, result: Record<string, unknown>): TaskEnd {
    let bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
    let kept = result;
    if (bytes > MAX_TASK_RESULT_BYTES) {
      kept = {
        content: [{ type: 'text', text: `the task's result is ${bytes} bytes, over serve's cap of ${MAX_TASK_RESULT_BYTES} bytes for a task's result; return less (or page it with result_page), or call the tool without the tasks extension` }],
        isError: true,
      };
      bytes = Buffer.byteLength(JSON.stringify(kept), 'utf8');
    }
    let total = bytes;
    const finished = this.records.of(record.owner).filter((r) => r !== record && r.end !== undefined);
    for (const r of finished) total += r.end!.bytes;
    for (const r of finished) {
      if (total <= MAX_TASK_RESULT_BYTES_PER_CALLER) break;
      total -= r.end!.bytes;
      this.records.remove(r.state.taskId);
    }
    return { result: kept, bytes };
  }
}
