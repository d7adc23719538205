/**
 * serve's answer to a 2026-07-28 request, whatever carries it (stdio.ts and http.ts hand such
 * requests here before the SDK's handshake-era session sees them):
 * - `_meta` is checked (wire.ts); methods the era removed are "method not found";
 * - `server/discover` says which versions serve speaks, what it offers and who it is;
 * - every other request runs as an {@link Exchange} through the same SDK server code a 2025
 *   session gets; a server request to the client during it (an approval, a provider's
 *   elicitation, sampling or roots request) is answered `input_required`, and the client's
 *   re-sent request — with `inputResponses` and the `requestState` it was given — resumes it;
 * - results say `resultType`, name the server in `_meta`, and carry cache hints where the spec
 *   asks for them (lists and `resources/read`).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ServeSession } from '../session.ts';
import { Exchange, type InputRequest, type Outcome } from './exchange.ts';
import { SuspendedExchanges, bindingOf } from './suspended.ts';
import { readFilter, runListenStream } from './listen.ts';
import type { DurablePauses, TakenRun } from './durable.ts';
import { StoredTasks, type ResumeInfo } from './stored-tasks.ts';
import type { RunRecord } from '../../store/journal.ts';
import { ModernTasks, TASK_METHODS, TASKS_EXTENSION, declaresTasks, missingTasksCapability } from './tasks.ts';
import { ErrorCodes, META_SERVER_INFO, META_SUBSCRIPTION_ID, MODERN_VERSION, ModernError, REMOVED_METHODS, SUPPORTED_VERSIONS, readRequestMeta, type RequestMeta } from './wire.ts';

/**
 * How long a client may keep a listing before fetching it again (`ttlMs`): lists change when a
 * provider comes, goes or re-lists, which `subscriptions/listen` announces at once.
 */
export const LIST_TTL_MS = 30_000;
/** How long serve's `server/discover` answer stays fresh: capabilities change only as providers come and go. */
export const DISCOVER_TTL_MS = 60_000;

/** Most `subscriptions/listen` streams open at once, over all clients (each holds a session in the gateway hub). */
export const MAX_LISTENERS = 64;

/** Methods whose results carry cache hints (spec: caching). */
const CACHEABLE: ReadonlySet<string> = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

/** Log levels by severity, to keep a provider's messages below the level a request asked for. */
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export interface ModernEndpointOptions {
  serverInfo: { name: string; version: string };
  /** What serve offers now (the gateway's union of providers, or tools only). */
  capabilities: () => ServerCapabilities;
  /** The session a request runs in and what to do when its exchange is over. */
  sessionFor: () => { session: ServeSession; release: () => void };
  /** The SDK server answering for one session (createToolServer). */
  newServer: (session: ServeSession) => Server;
  /** The input schema of the tool clients call `name` (its `x-mcp-header` marks are checked over HTTP). */
  toolSchema?: (name: string) => Record<string, unknown> | undefined;
  logger: Logger;
  /**
   * How long serve's own `tools/list` answer stays true (ms), when providers' cache hints make
   * it shorter than {@link LIST_TTL_MS}: until serve's next hinted re-list of a provider.
   */
  toolsTtlMs?: () => number | undefined;
  /** With a store: a run waiting for its client's approval is stored, and resumed by replay anywhere (durable.ts). */
  durable?: DurablePauses | undefined;
  /** The tool that runs as a task (the tasks extension, tasks.ts) for clients that declare it: `code_execution` when the host has it. */
  taskTool?: string | undefined;
  /** Whether `name` is a provider's task tool, which also runs as a task for clients that declare the extension (serve/gateway-tasks.ts). */
  providerTask?: ((name: string) => boolean) | undefined;
}

/** The caller of a request that names none (stdio: the one client of the process). */
export const LOCAL_CALLER = 'local';

/** Methods of the 2025 tasks that the extension removed: "method not found". */
const REMOVED_TASK_METHODS: ReadonlySet<string> = new Set(['tasks/list', 'tasks/result']);

/** A JSON-RPC response of the era (result or error) for the request `id`. */
export type ModernResponse = JSONRPCMessage & { id: JSONRPCRequest['id'] };

function errorResponse(id: JSONRPCRequest['id'], code: number, message: string, data?: unknown): ModernResponse {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } } as ModernResponse;
}

export class ModernEndpoint {
  readonly suspended = new SuspendedExchanges();
  private readonly listeners = new Set<Exchange>();
  /** The tasks extension's tasks, when a tool runs as one (tasks.ts). */
  readonly tasks: ModernTasks | undefined;

  constructor(private readonly options: ModernEndpointOptions) {
    // With a store, tasks are kept there too: any instance on it answers for them (stored-tasks.ts).
    const durable = options.durable;
    this.tasks = options.taskTool === undefined && options.providerTask === undefined
      ? undefined
      : new ModernTasks(
        durable ? new StoredTasks(durable.store, options.logger) : undefined,
        durable ? { pauses: durable, logger: options.logger, reopen: (resume, record) => this.reopen(durable, resume, record) } : undefined,
      );
  }

  /** The input schema of the tool `name` as listed to clients; undefined for a name not listed. */
  toolSchema(name: string): Record<string, unknown> | undefined {
    return this.options.toolSchema?.(name);
  }

  /**
   * Answers one request. `notify` receives the notifications that belong to it (progress, log
   * messages when `_meta` asked for a level); `signal` aborts when the client is gone (its call
   * is cancelled). `caller` is who sent it (serve's authorization context: the bearer token's
   * digest, or the peer's address); tasks belong to it. A request malformed for the era throws
   * {@link ModernError}.
   */
  async handle(request: JSONRPCRequest, notify: (n: JSONRPCNotification) => void, signal: AbortSignal, caller: string = LOCAL_CALLER): Promise<ModernResponse> {
    const meta = readRequestMeta(request);
    if (REMOVED_METHODS.has(request.method)) throw new ModernError(ErrorCodes.methodNotFound, `Method not found: ${request.method} is not part of protocol ${MODERN_VERSION}`, 404);
    if (request.method === 'server/discover') return this.discover(request);
    if (request.method === 'subscriptions/listen') return this.listen(request, meta, notify, signal, caller);
    if (TASK_METHODS.has(request.method) || REMOVED_TASK_METHODS.has(request.method)) return this.taskMethod(request, meta, caller);
    const filtered = this.notifications(meta, notify);
    const state = (request.params as { requestState?: unknown } | undefined)?.requestState;
    if (typeof state === 'string') return this.resume(request, state, filtered, signal);
    if (this.tasks && this.runsAsTask(request, meta)) return this.startTask(this.tasks, request, meta, caller);
    const { session, release } = this.options.sessionFor();
    let exchange: Exchange;
    try {
      exchange = await Exchange.start(this.options.newServer(session), meta, { ...request, params: this.innerParams(request) });
    } catch (error) {
      release();
      throw error;
    }
    const answer = await this.drive(exchange, request.id, release, filtered, signal);
    return request.method === 'tools/list' && this.tasks && declaresTasks(meta) ? this.listedAsTask(answer) : answer;
  }

  /**
   * A listing for a client that declared the tasks extension: the task tool says
   * `execution.taskSupport: "optional"` (the loopback session, which takes no 2025 tasks, lists
   * it "forbidden" — true only for clients without the extension).
   */
  private listedAsTask(answer: ModernResponse): ModernResponse {
    const result = (answer as { result?: { tools?: unknown } }).result;
    if (!result || !Array.isArray(result.tools)) return answer;
    const tools = result.tools.map((t: { name?: unknown; execution?: Record<string, unknown> }) =>
      t.name === this.options.taskTool ? { ...t, execution: { ...t.execution, taskSupport: 'optional' } } : t);
    return { ...answer, result: { ...result, tools } } as ModernResponse;
  }

  /** Closes every exchange waiting for input, every listening stream and every task's run. */
  async close(): Promise<void> {
    await this.tasks?.close();
    await Promise.all([...this.listeners].map((l) => l.close('the server is shutting down')));
    await this.suspended.closeAll('the server is shutting down');
  }

  /**
   * `subscriptions/listen` (listen.ts): the stream runs in a session of its own, which joins the
   * gateway hub like any 2025 session, until the client goes away or serve stops.
   */
  private async listen(request: JSONRPCRequest, meta: RequestMeta, notify: (n: JSONRPCNotification) => void, signal: AbortSignal, caller: string = LOCAL_CALLER): Promise<ModernResponse> {
    if (this.listeners.size >= MAX_LISTENERS) return errorResponse(request.id, -32000, `serve has ${MAX_LISTENERS} subscription streams open already; try again later`);
    const filter = readFilter(request);
    // Task ids are this endpoint's own (tasks.ts): the caller's own ones are acknowledged with the lists (listen.ts).
    const asked = ((request.params as { notifications?: unknown } | undefined)?.notifications ?? {}) as Record<string, unknown>;
    const watched = this.taskSubscription(asked, meta, caller);
    const tag = { [META_SUBSCRIPTION_ID]: request.id };
    const { session, release } = this.options.sessionFor();
    let stream: Exchange;
    try {
      stream = await Exchange.start(this.options.newServer(session), meta, request, false);
    } catch (error) {
      release();
      throw error;
    }
    this.listeners.add(stream);
    // Each status change of a watched task, as the DetailedTask tasks/get would answer (tasks.ts).
    const unwatch = watched && this.tasks?.watch(caller, watched, (task) => notify({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...task, _meta: tag } }));
    const stop = () => void stream.close('the subscription ended');
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    try {
      await runListenStream(stream, request.id, filter, this.options.capabilities(), notify, this.options.logger, watched === undefined ? {} : { taskIds: watched });
    } finally {
      unwatch?.();
      signal.removeEventListener('abort', stop);
      this.listeners.delete(stream);
      await stream.close('the subscription ended');
      release();
    }
    return { jsonrpc: '2.0', id: request.id, result: { resultType: 'complete', _meta: { [META_SUBSCRIPTION_ID]: request.id, [META_SERVER_INFO]: this.options.serverInfo } } } as ModernResponse;
  }

  /**
   * The task ids a `subscriptions/listen` gets `notifications/tasks` for: those asked under
   * `taskIds` that the caller owns (tasks.ts); undefined when none were asked. Asking without
   * the extension declared is -32021.
   */
  private taskSubscription(asked: Record<string, unknown>, meta: RequestMeta, caller: string): string[] | undefined {
    if (asked.taskIds === undefined) return undefined;
    if (!declaresTasks(meta)) throw missingTasksCapability();
    return this.tasks && Array.isArray(asked.taskIds) ? this.tasks.owned(caller, asked.taskIds) : [];
  }

  /**
   * A `tools/call` the tasks extension answers with a task: the task tool, called to run code
   * (not `action: wait|status|cancel`, which answer at once), or a provider's task tool
   * (`execution.taskSupport` "required" or "optional"), by a client that declared the
   * extension on this request. Anything else runs as before.
   */
  private runsAsTask(request: JSONRPCRequest, meta: RequestMeta): boolean {
    if (request.method !== 'tools/call' || !declaresTasks(meta)) return false;
    const params = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof params.name === 'string' && params.name !== this.options.taskTool && this.options.providerTask?.(params.name)) return true;
    if (params.name !== this.options.taskTool) return false;
    const args = params.arguments;
    return !(typeof args === 'object' && args !== null && (args as Record<string, unknown>).action !== undefined);
  }

  /** Starts the call as a task of `caller`: its session is held until the task ends (tasks.ts). */
  private async startTask(tasks: ModernTasks, request: JSONRPCRequest, meta: RequestMeta, caller: string): Promise<ModernResponse> {
    const refused = tasks.refusal(caller);
    if (refused !== undefined) return errorResponse(request.id, -32000, refused);
    const { session, release } = this.options.sessionFor();
    let exchange: Exchange;
    try {
      exchange = await Exchange.start(this.options.newServer(session), meta, { ...request, params: this.innerParams(request) });
    } catch (error) {
      release();
      throw error;
    }
    const created = await tasks.start(caller, exchange, meta, release);
    return { jsonrpc: '2.0', id: request.id, result: { ...created, _meta: { [META_SERVER_INFO]: this.options.serverInfo } } } as ModernResponse;
  }

  /** A parked task's request started again in a session of its own, resuming its stored run by replay (tasks.ts). */
  private async reopen(durable: DurablePauses, resume: ResumeInfo, record: RunRecord): Promise<{ exchange: Exchange; release: () => void }> {
    const { session, release } = this.options.sessionFor();
    try {
      const request = { jsonrpc: '2.0', id: resume.request.id, method: resume.request.method, params: resume.request.params } as JSONRPCRequest;
      const exchange = await durable.runs.resuming(record, () => Exchange.start(this.options.newServer(session), resume.meta, request));
      return { exchange, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** `tasks/get`, `tasks/update`, `tasks/cancel` (gated on the extension), and the 2025 task methods the extension removed. */
  private async taskMethod(request: JSONRPCRequest, meta: RequestMeta, caller: string): Promise<ModernResponse> {
    const tasks = this.tasks;
    if (tasks === undefined || REMOVED_TASK_METHODS.has(request.method)) {
      throw new ModernError(ErrorCodes.methodNotFound, `Method not found: ${request.method}${tasks === undefined ? ' (serve runs no tasks: it has no code_execution and no providers)' : ` is not part of the ${TASKS_EXTENSION} extension`}`, 404);
    }
    if (!declaresTasks(meta)) throw missingTasksCapability();
    const result = await (request.method === 'tasks/get' ? tasks.get(caller, request) : request.method === 'tasks/update' ? tasks.update(caller, request) : tasks.cancel(caller, request));
    return { jsonrpc: '2.0', id: request.id, result: { ...result, _meta: { [META_SERVER_INFO]: this.options.serverInfo } } } as ModernResponse;
  }

  /** What serve offers, with the tasks extension when a tool runs as a task. */
  private capabilities(): ServerCapabilities {
    const offered = this.options.capabilities();
    if (this.tasks === undefined) return offered;
    const extensions = (offered as { extensions?: Record<string, unknown> }).extensions;
    return { ...offered, extensions: { ...extensions, [TASKS_EXTENSION]: {} } } as ServerCapabilities;
  }

  private discover(request: JSONRPCRequest): ModernResponse {
    return {
      jsonrpc: '2.0',
      id: request.id,
      result: {
        resultType: 'complete',
        supportedVersions: [...SUPPORTED_VERSIONS],
        capabilities: this.capabilities(),
        cacheScope: 'private',
        ttlMs: DISCOVER_TTL_MS,
        _meta: { [META_SERVER_INFO]: this.options.serverInfo },
      },
    } as ModernResponse;
  }

  /** The params the loopback session gets: the era's own `_meta` keys and retry fields stay out. */
  private innerParams(request: JSONRPCRequest): Record<string, unknown> {
    const { _meta, inputResponses, requestState, ...rest } = (request.params ?? {}) as Record<string, unknown>;
    const kept = Object.fromEntries(Object.entries((_meta ?? {}) as Record<string, unknown>).filter(([k]) => !k.startsWith('io.modelcontextprotocol/')));
    return { ...rest, ...(Object.keys(kept).length > 0 ? { _meta: kept } : {}) };
  }

  /** Progress always (it only exists when asked for); log messages only at or above the level `_meta` names. */
  private notifications(meta: RequestMeta, notify: (n: JSONRPCNotification) => void): (n: JSONRPCNotification) => void {
    const floor = meta.logLevel !== undefined ? LEVELS.indexOf(meta.logLevel) : -1;
    return (n) => {
      if (n.method === 'notifications/progress') return notify(n);
      if (n.method === 'notifications/message' && floor >= 0) {
        const level = LEVELS.indexOf(String((n.params as { level?: unknown } | undefined)?.level));
        if (level >= floor) notify(n);
      }
    };
  }

  private async resume(request: JSONRPCRequest, state: string, notify: (n: JSONRPCNotification) => void, signal: AbortSignal): Promise<ModernResponse> {
    let taken;
    try {
      taken = this.suspended.take(state, bindingOf(request.method, request.params));
    } catch (error) {
      return errorResponse(request.id, ErrorCodes.invalidParams, `Invalid params: ${(error as Error).message}`);
    }
    if (!taken && this.options.durable) return this.resumeStored(this.options.durable, request, state, notify, signal);
    if (!taken) return errorResponse(request.id, ErrorCodes.invalidParams, 'Invalid params: requestState is unknown, expired or already used; send the request again without it');
    const responses = (request.params as { inputResponses?: unknown }).inputResponses;
    if (responses && typeof responses === 'object') {
      for (const [key, value] of Object.entries(responses as Record<string, unknown>)) taken.exchange.answer(key, value);
    }
    return this.drive(taken.exchange, request.id, taken.release, notify, signal);
  }

  /**
   * A retry whose `requestState` names a run in the store (paused here before a restart, or at
   * another instance): taken once, its request runs again as a resume of that run (durable.ts).
   */
  private async resumeStored(durable: DurablePauses, request: JSONRPCRequest, state: string, notify: (n: JSONRPCNotification) => void, signal: AbortSignal): Promise<ModernResponse> {
    const taken = await durable.take(state, bindingOf(request.method, request.params), (request.params as { inputResponses?: unknown }).inputResponses);
    if (typeof taken === 'string') return errorResponse(request.id, ErrorCodes.invalidParams, `Invalid params: ${taken}`);
    const { session, release } = this.options.sessionFor();
    const done = () => {
      release();
      void durable.forget(state);
    };
    let exchange: Exchange;
    try {
      exchange = await durable.runs.resuming(taken.record, () => Exchange.start(this.options.newServer(session), readRequestMeta(request), { ...request, params: this.innerParams(request) }));
    } catch (error) {
      done();
      throw error;
    }
    return this.drive(exchange, request.id, done, notify, signal, taken);
  }

  /** Runs the exchange to its answer or its next input request. */
  private async drive(exchange: Exchange, id: JSONRPCRequest['id'], release: () => void, notify: (n: JSONRPCNotification) => void, signal: AbortSignal, resumed?: TakenRun): Promise<ModernResponse> {
    const abandon = () => void exchange.close('the client went away before the answer').finally(release);
    if (signal.aborted) {
      abandon();
      return errorResponse(id, -32000, 'the client went away');
    }
    signal.addEventListener('abort', abandon, { once: true });
    let outcome: Outcome;
    try {
      for (;;) {
        outcome = await exchange.next(notify);
        if (outcome.kind !== 'input' || !resumed || resumed.answers.size === 0 || !this.options.durable) break;
        // A resumed run asks again what its client already answered: answered from the stored answers, digest for digest.
        const answered = this.options.durable.answer(exchange, outcome.requests, resumed);
        if (typeof answered === 'string') {
          await exchange.close(answered);
          release();
          return errorResponse(id, -32000, answered);
        }
        if (answered === 0) break;
      }
    } catch (error) {
      release();
      return errorResponse(id, -32000, (error as Error).message);
    } finally {
      signal.removeEventListener('abort', abandon);
    }
    if (outcome.kind === 'input' && this.options.durable) {
      const binding = bindingOf(exchange.request.method, exchange.request.params);
      const stored = await this.options.durable.park(binding, outcome.requests);
      if (stored !== undefined) {
        // The run lives in the store now: here it ends, and the retry resumes it by replay wherever it arrives.
        await exchange.close('the run was paused and stored; it resumes by replay');
        release();
        return this.inputRequired(id, outcome.requests, stored);
      }
    }
    if (outcome.kind === 'input') {
      const token = this.suspended.park(exchange, bindingOf(exchange.request.method, exchange.request.params), release);
      if (token === undefined) {
        await exchange.close('too many requests are waiting for input');
        release();
        return errorResponse(id, -32000, `serve holds ${this.suspended.size} requests waiting for input already; try again later`);
      }
      return this.inputRequired(id, outcome.requests, token);
    }
    await exchange.close('answered');
    release();
    return this.finish(exchange.request.method, { ...outcome.message, id } as ModernResponse);
  }

  private inputRequired(id: JSONRPCRequest['id'], requests: ReadonlyMap<string, InputRequest>, token: string): ModernResponse {
    const inputRequests = Object.fromEntries([...requests].map(([key, r]) => [key, { method: r.method, ...(r.params !== undefined ? { params: r.params } : {}) }]));
    return { jsonrpc: '2.0', id, result: { resultType: 'input_required', inputRequests, requestState: token, _meta: { [META_SERVER_INFO]: this.options.serverInfo } } } as ModernResponse;
  }

  /** The era's decorations of a final answer: `resultType`, the server's name, cache hints. */
  private finish(method: string, message: ModernResponse): ModernResponse {
    const m = message as { result?: Record<string, unknown> };
    if (!m.result) return message;
    const result: Record<string, unknown> = { ...m.result, resultType: 'complete' };
    result._meta = { ...(m.result._meta as Record<string, unknown> | undefined), [META_SERVER_INFO]: this.options.serverInfo };
    if (CACHEABLE.has(method)) {
      // A provider's own hints win; serve's listings are per authorization context, hence private.
      // A list's hint from its providers never outlasts serve's own (providers come and go).
      if (typeof result.ttlMs === 'number' && method !== 'resources/read') result.ttlMs = Math.min(result.ttlMs, LIST_TTL_MS);
      if (typeof result.ttlMs !== 'number') {
        const tools = method === 'tools/list' ? this.options.toolsTtlMs?.() : undefined;
        result.ttlMs = method === 'resources/read' ? 0 : Math.min(LIST_TTL_MS, tools ?? LIST_TTL_MS);
      }
      if (result.cacheScope !== 'public' && result.cacheScope !== 'private') result.cacheScope = 'private';
    }
    return { ...message, result } as ModernResponse;
  }
}
