/**
 * Tasks as the `io.modelcontextprotocol/tasks` extension (SEP-2663, 2026-07-28), client side,
 * as a hook of the era layer (era.ts): a `tools/call` the connection marks (a tool that must
 * be called as a task, src/mcpl/tasks.ts) is sent with the extension declared in its `_meta`
 * client capabilities. A `resultType: "task"` answer is followed here, below the SDK client,
 * which only ever sees its request answered once:
 * - `tasks/get` every `pollIntervalMs` the server gives (clamped to
 *   [{@link MIN_TASK_POLL_MS}, {@link MAX_TASK_POLL_MS}]) until the task ends; each new status
 *   message reaches the call as a progress report (the extension carries no progress);
 * - `input_required`: each of the task's `inputRequests` is handed to the SDK client as the
 *   server request it is (with the call's progress token, so the same `serverRequests`
 *   handlers answer it, attributed to the call), and the answers go back in `tasks/update` —
 *   at most {@link MAX_INPUT_ROUNDS} rounds;
 * - `completed`: the task's `result` answers the request; `failed`: its `error` (or its
 *   `isError` result); `cancelled`: an error saying so. No error this file makes names the
 *   server's task id: it is the connection's, and a gateway's client must never see it
 *   (as src/mcpl/tasks.ts words the 2025 path's errors);
 * - the SDK client giving the request up (`notifications/cancelled`: its caller aborted, its
 *   timeout passed) stops the polling and sends `tasks/cancel`.
 * Bounded: polling lives only as long as the call (the SDK's request timeout cancels it), one
 * `tasks/get` is in flight at a time, and an answer that is not the extension's shape ends the
 * call with an error.
 */
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The extension's identifier (client capabilities `extensions`, and the server's). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/**
 * `_meta` key by which the connection marks a `tools/call` to be called as a task of the
 * extension; the era layer takes it out before the request goes on the wire.
 */
export const AS_TASK_META = 'dev.toolcell/asTask';
/** Shortest wait between two `tasks/get` (a server's `pollIntervalMs: 0` must not make the client spin). */
export const MIN_TASK_POLL_MS = 50;
/** Longest wait between two `tasks/get` (a server's huge interval must not outlast the call unnoticed). */
export const MAX_TASK_POLL_MS = 5_000;
/** Most `input_required` rounds one task may ask (a server asking forever is an error). */
export const MAX_TASK_INPUT_ROUNDS = 16;

const CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
/** era.ts's `INPUT_KEY_META` (the input request's key, for a gateway asking its own client); not imported: era.ts imports this file. */
const INPUT_KEY_META = 'dev.toolcell/inputKey';

type Json = Record<string, unknown>;

/** `text` with the server's task id (when there is one) replaced by words: the id is the connection's, never a caller's. */
export function withoutTaskId(text: string, taskId: string | undefined): string {
  return taskId === undefined ? text : text.split(taskId).join('(the server\'s task)');
}

interface Followed {
  /** The SDK client's request id: the answer goes to it. */
  callId: RequestId;
  taskId: string;
  progressToken: unknown;
  timer?: NodeJS.Timeout;
  /** Input keys asked and not answered yet, by the synthetic request id the SDK client answers. */
  waiting: Map<RequestId, string>;
  /** Keys asked so far (a later `tasks/get` listing them again is not asked twice). */
  asked: Set<string>;
  answers: Json;
  rounds: number;
  lastStatus?: string;
  progress: number;
  done: boolean;
}

/** What the follower needs of the era layer. */
export interface TaskWire {
  /** Sends a request on the wire, with the era's `_meta` (see {@link TaskFollower.declare}). */
  send: (message: JSONRPCMessage) => Promise<void>;
  /** Delivers a message to the SDK client. */
  toClient: (message: JSONRPCMessage) => void;
  /** Delivers a message as if it came in on the transport (through whatever reads inbound messages before the SDK: the connection's call tracker takes its progress). */
  inbound: (message: JSONRPCMessage) => void;
  /** A request of the era (its `_meta`) for `method` with `params`. */
  request: (id: RequestId, method: string, params: Json) => JSONRPCRequest;
}

/** The extension's task calls of one connection. */
export class TaskFollower {
  /** SDK request ids of the calls marked as tasks (their requests declare the extension). */
  private readonly marked = new Set<RequestId>();
  private readonly byCall = new Map<RequestId, Followed>();
  /** Our own requests on the wire (`tasks/get`, `tasks/update`, `tasks/cancel`) → their task. */
  private readonly own = new Map<RequestId, { task: Followed; method: string }>();
  /** Synthetic input-request id → its task. */
  private readonly inputs = new Map<RequestId, Followed>();
  private serial = 0;

  constructor(private readonly wire: TaskWire) {}

  /** Takes the marker out of a request the SDK client sends; remembers it as a task call. */
  take(request: JSONRPCRequest): JSONRPCRequest {
    const params = request.params as Json | undefined;
    const meta = params?._meta as Json | undefined;
    if (request.method !== 'tools/call' || meta === undefined || !(AS_TASK_META in meta)) return request;
    const { [AS_TASK_META]: _marker, ...rest } = meta;
    this.marked.add(request.id);
    return { ...request, params: { ...params, _meta: rest } };
  }

  /** A request with the era's `_meta` on the wire: a task call (or one of ours) declares the extension. */
  declare(request: JSONRPCRequest, callId: RequestId): JSONRPCRequest {
    if (!this.marked.has(callId) && !this.own.has(callId)) return request;
    const params = (request.params ?? {}) as Json;
    const meta = (params._meta ?? {}) as Json;
    const capabilities = (meta[CAPABILITIES_META] ?? {}) as Json;
    const extensions = (capabilities.extensions ?? {}) as Json;
    return {
      ...request,
      params: { ...params, _meta: { ...meta, [CAPABILITIES_META]: { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } } } },
    };
  }

  /** The SDK client's request `callId` was answered (or failed) without a task: forgotten. */
  settled(callId: RequestId): void {
    this.marked.delete(callId);
  }

  /**
   * An answer to the SDK client's request `request` (its id on the wire already mapped back)
   * is a task: it is followed from here. Returns false when the answer is no task.
   */
  follow(request: JSONRPCRequest, result: Json): boolean {
    if (result.resultType !== 'task') return false;
    this.marked.delete(request.id);
    const created = (typeof result.task === 'object' && result.task !== null ? result.task : result) as Json;
    const progressToken = ((request.params as Json | undefined)?._meta as Json | undefined)?.progressToken;
    if (typeof created.taskId !== 'string') {
      this.wire.toClient({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: 'the server answered a task without a taskId' } });
      return true;
    }
    const task: Followed = { callId: request.id, taskId: created.taskId, progressToken, waiting: new Map(), asked: new Set(), answers: {}, rounds: 0, progress: 0, done: false };
    this.byCall.set(request.id, task);
    this.observe(task, created);
    return true;
  }

  /** An inbound message: true when it answers one of our own requests (handled here). */
  inbound(message: Json): boolean {
    const id = message.id as RequestId | undefined;
    if (id === undefined || !('result' in message || 'error' in message)) return false;
    const own = this.own.get(id);
    if (own === undefined) return false;
    this.own.delete(id);
    const { task, method } = own;
    if (task.done) return true;
    if ('error' in message) {
      // A failed tasks/cancel needs no answer (the call was given up already); any other failure ends the call.
      if (method !== 'tasks/cancel') this.end(task, { error: this.scrubbed(task, message.error as Json) });
      return true;
    }
    if (method === 'tasks/get') this.observe(task, message.result as Json);
    else if (method === 'tasks/update') this.poll(task, 0);
    return true;
  }

  /** The SDK client's answer to an input request of a task: true when it is one (handled here). */
  answer(message: Json): boolean {
    const id = message.id as RequestId | undefined;
    const task = id !== undefined ? this.inputs.get(id) : undefined;
    if (task === undefined || id === undefined) return false;
    this.inputs.delete(id);
    const key = task.waiting.get(id);
    task.waiting.delete(id);
    if (task.done || key === undefined) return true;
    // An input request the client failed to answer counts as declined (fail closed).
    task.answers[key] = 'result' in message ? message.result : { action: 'decline' };
    if (task.waiting.size === 0) {
      const inputResponses = task.answers;
      task.answers = {};
      this.ask(task, 'tasks/update', { taskId: task.taskId, inputResponses });
    }
    return true;
  }

  /** The SDK client gave up its request (`notifications/cancelled`): true when it was a followed task (cancelled here). */
  cancelled(message: Json): boolean {
    if (message.method !== 'notifications/cancelled') return false;
    const callId = (message.params as Json | undefined)?.requestId as RequestId | undefined;
    const task = callId !== undefined ? this.byCall.get(callId) : undefined;
    if (task === undefined) return false;
    this.stop(task);
    this.ask(task, 'tasks/cancel', { taskId: task.taskId });
    return true;
  }

  /** The transport closed: every followed task stops (the SDK client fails their requests itself). */
  close(): void {
    for (const task of [...this.byCall.values()]) this.stop(task);
    this.own.clear();
    this.marked.clear();
  }

  /** A task's state (the create answer or a `tasks/get` result): end it, ask its questions, or poll again. */
  private observe(task: Followed, state: Json): void {
    const status = state.status;
    const message = typeof state.statusMessage === 'string' ? withoutTaskId(state.statusMessage, task.taskId) : undefined;
    const seen = `${String(status)}\u0000${message ?? ''}`;
    if (seen !== task.lastStatus && task.progressToken !== undefined) {
      this.wire.inbound({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: task.progressToken, progress: ++task.progress, message: message ?? String(status) } } as JSONRPCMessage);
    }
    task.lastStatus = seen;
    const interval = typeof state.pollIntervalMs === 'number' && Number.isFinite(state.pollIntervalMs) ? state.pollIntervalMs : 1_000;
    const wait = Math.min(MAX_TASK_POLL_MS, Math.max(MIN_TASK_POLL_MS, interval));
    switch (status) {
      case 'working':
        return this.poll(task, wait);
      case 'input_required':
        return this.questions(task, state, wait);
      case 'completed':
        if (typeof state.result === 'object' && state.result !== null) return this.end(task, { result: state.result as Json });
        return this.end(task, { error: { code: -32603, message: "the server's task completed without a result" } });
      case 'failed':
        if (typeof state.result === 'object' && state.result !== null) return this.end(task, { result: state.result as Json });
        return this.end(task, { error: typeof state.error === 'object' && state.error !== null ? this.scrubbed(task, state.error as Json) : { code: -32603, message: `the server's task failed${message ? `: ${message}` : ''}` } });
      case 'cancelled':
        return this.end(task, { error: { code: -32603, message: `the server cancelled its task${message ? `: ${message}` : ''}` } });
      default:
        return this.end(task, { error: { code: -32603, message: `the server's task has a status the tasks extension does not define: ${JSON.stringify(status)}` } });
    }
  }

  /** Hands the task's new input requests to the SDK client; with none new (all asked), polls on. */
  private questions(task: Followed, state: Json, wait: number): void {
    const requests = (typeof state.inputRequests === 'object' && state.inputRequests !== null ? state.inputRequests : {}) as Record<string, Json>;
    const fresh = Object.entries(requests).filter(([key]) => !task.asked.has(key));
    if (fresh.length === 0) return this.poll(task, wait);
    if (++task.rounds > MAX_TASK_INPUT_ROUNDS) {
      this.stop(task);
      this.ask(task, 'tasks/cancel', { taskId: task.taskId });
      return this.end(task, { error: { code: -32603, message: `the server's task asked for input more than ${MAX_TASK_INPUT_ROUNDS} times; it was cancelled` } });
    }
    for (const [key, request] of fresh) {
      task.asked.add(key);
      const id = `__toolcell_task_input_${++this.serial}__`;
      task.waiting.set(id, key);
      this.inputs.set(id, task);
      const params = { ...((request.params ?? {}) as Json) };
      // The call's progress token attributes the request to the call (docs/mcp-client.md); the key goes with it.
      params._meta = { ...(params._meta as Json | undefined), ...(task.progressToken !== undefined ? { progressToken: task.progressToken } : {}), [INPUT_KEY_META]: key };
      this.wire.toClient({ jsonrpc: '2.0', id, method: String(request.method), params } as JSONRPCMessage);
    }
  }

  private poll(task: Followed, wait: number): void {
    if (task.done) return;
    clearTimeout(task.timer);
    task.timer = setTimeout(() => this.ask(task, 'tasks/get', { taskId: task.taskId }), wait);
    task.timer.unref?.();
  }

  /** Sends one of our requests for `task`; a send that fails ends the call. */
  private ask(task: Followed, method: string, params: Json): void {
    const id = `__toolcell_task_${method.slice(6)}_${++this.serial}__`;
    this.own.set(id, { task, method });
    this.wire.send(this.declare(this.wire.request(id, method, params), id)).catch((error: Error) => {
      this.own.delete(id);
      if (method !== 'tasks/cancel') this.end(task, { error: { code: -32603, message: `${method} for the server's task could not be sent: ${error.message}` } });
    });
  }

  /** A server's error, its message without the task's id. */
  private scrubbed(task: Followed, error: Json): Json {
    return typeof error.message === 'string' ? { ...error, message: withoutTaskId(error.message, task.taskId) } : error;
  }

  private stop(task: Followed): void {
    task.done = true;
    clearTimeout(task.timer);
    this.byCall.delete(task.callId);
    for (const id of task.waiting.keys()) this.inputs.delete(id);
    task.waiting.clear();
  }

  private end(task: Followed, outcome: { result: Json } | { error: Json }): void {
    if (task.done) return;
    this.stop(task);
    this.wire.toClient({ jsonrpc: '2.0', id: task.callId, ...outcome } as JSONRPCMessage);
  }
}
