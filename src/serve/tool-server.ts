/**
 * The MCP server face of the host, one per MCP session: `tools/list` lists every host tool
 * (with `_meta["mcpl/class"]`), and each `tools/call` is one model call through the host's
 * dispatch path in its own stream — the client cancelling it, or the session ending, aborts
 * that call. A request carrying `_meta.progressToken` receives the call's progress.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ProgressUpdate } from '../host/types.ts';
import type { Logger } from 'pino';
import type { ToolHost } from '../host/tool-host.ts';
import type { ServeClients } from './approval-clients.ts';
import { progressForwarder } from './progress.ts';
import { notifyScriptsFinished, subscribeScriptsFinished } from './script-finished.ts';
import { scriptTasksOf, TASKS_CAPABILITY, type SessionTaskStore } from './script-tasks.ts';
import { SessionTaskQueue } from './task-queue.ts';
import { isProviderTaskTool, taskRun, type TaskRun } from './gateway-tasks.ts';
import { listServedTools } from './served-tools.ts';
import { forwardedMeta, registerGateway } from './gateway/handlers.ts';
import type { GatewayHub } from './gateway/hub.ts';
import type { ServeSession } from './session.ts';
import { resumedCallId } from '../code-execution/durable-runs.ts';
import { CODE_EXECUTION } from '../code-execution/options.ts';

/** `_meta` key a client may set on `tools/call` to name the conversation the call belongs to. */
export const CONVERSATION_META_KEY = 'agent-framework/conversationId';

export const SERVER_INFO = { name: 'toolcell', version: '0.1.0' } as const;

/** What takes each session's server out of the gateway hub (see {@link leaveGateway}). */
const gatewayMemberships = new WeakMap<Server, () => void>();

/** Takes `server` (from {@link createToolServer}) out of the gateway hub: its session is over (modern/: after each 2026-era request). */
export function leaveGateway(server: Server): void {
  gatewayMemberships.get(server)?.();
  gatewayMemberships.delete(server);
}

/**
 * Runs a call's dispatch inside whatever the request's `_meta` asks for (telemetry makes a
 * client's `traceparent` the parent of the call's span). Without one, dispatch runs as is.
 */
export type AroundDispatch = <T>(meta: Record<string, unknown> | undefined, dispatch: () => T) => T;

/**
 * `clients`: set when approvals are configured, so that the gate can ask this session's client.
 * `gateway`: passes the providers' resources, prompts, completion and logging through, and
 * declares what they offer (see gateway/).
 * `withTasks`: `code_execution`, and through the gateway a provider's task tool, run as an MCP
 * task where a client asks for one (script-tasks.ts, gateway-tasks.ts); false for the 2026-era
 * endpoint, whose sessions last one request.
 */
export function createToolServer(host: ToolHost, session: ServeSession, logger: Logger, around?: AroundDispatch, clients?: ServeClients, gateway?: GatewayHub, withTasks = true): Server {
  const capabilities = gateway ? gateway.capabilities() : { tools: {} };
  const instructions = gateway?.instructions();
  // code_execution runs as an MCP task where a client asks for one (script-tasks.ts), and so does
  // a provider's task tool through the gateway (gateway-tasks.ts); the session's store sees its own tasks only.
  const codeTasks = withTasks && host.registry.get(CODE_EXECUTION) !== undefined;
  const tasks = codeTasks || (withTasks && gateway !== undefined) ? scriptTasksOf(host).storeFor(session) : undefined;
  if (tasks) session.onEnd(() => scriptTasksOf(host).forget(session));
  // What a task asks of its client waits for the client's tasks/result (task-queue.ts: own tasks only, bounded).
  const taskQueue = tasks ? new SessionTaskQueue((taskId) => tasks.owns(taskId)) : undefined;
  const server = new Server(SERVER_INFO, {
    capabilities: tasks ? { ...capabilities, tasks: TASKS_CAPABILITY } : capabilities,
    ...(tasks ? { taskStore: tasks, taskMessageQueue: taskQueue } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
  });
  const member = gateway ? registerGateway(server, gateway, capabilities, session.conversationId) : undefined;
  if (gateway && member) gatewayMemberships.set(server, () => void gateway.leaveMember(member));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listServedTools(host, codeTasks) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const conversationId = session.conversationFor(request.params._meta?.[CONVERSATION_META_KEY]);
    if (request.params.task === undefined) return call(request, extra, conversationId);
    if (tasks !== undefined && gateway !== undefined && isProviderTaskTool(host, request.params.name)) {
      const refused = tasks.refusal();
      if (refused !== undefined) throw new McpError(ErrorCode.InvalidRequest, refused);
      const task = tasks.create(request.params.task.ttl);
      const run = taskRun(tasks, task.taskId);
      settleWith(tasks, run.taskId, call(request, extra, conversationId, run));
      return { task };
    }
    if (request.params.name !== CODE_EXECUTION || !codeTasks || tasks === undefined) {
      throw new McpError(ErrorCode.MethodNotFound, `${request.params.name} does not run as a task (its execution.taskSupport is "forbidden"); call it without params.task`);
    }
    const args = request.params.arguments ?? {};
    if (args.action !== undefined) throw new McpError(ErrorCode.InvalidParams, 'a code_execution task runs code; use tasks/get, tasks/result and tasks/cancel for its state, result and cancel');
    const refused = tasks.refusal();
    if (refused !== undefined) throw new McpError(ErrorCode.InvalidRequest, refused);
    const task = tasks.create(request.params.task.ttl);
    runAsTask(tasks, task.taskId, conversationId, (input) => call({ ...request, params: { ...request.params, arguments: input } }, extra, conversationId), args);
    return { task };
  });

  /** Runs the call as a background script (`wait_ms: 0`) and settles task `taskId` when the script ends. */
  function runAsTask(store: SessionTaskStore, taskId: string, conversationId: string, start: (input: Record<string, unknown>) => Promise<CallToolResult>, args: Record<string, unknown>): void {
    // Listening before the start: a script that ends at once is not missed.
    const ended = new Map<string, { status: 'completed' | 'cancelled'; result: CallToolResult }>();
    let scriptId: string | undefined;
    const settle = (status: 'completed' | 'cancelled', result: CallToolResult) => {
      unsubscribe();
      store.settle(taskId, status === 'cancelled' ? 'cancelled' : result.isError === true ? 'failed' : 'completed', result);
    };
    const unsubscribe = subscribeScriptsFinished(host, (info) => {
      if (info.conversationId !== conversationId) return;
      const end = { status: info.status, result: info.result as CallToolResult };
      if (scriptId === undefined) ended.set(info.scriptId, end);
      else if (info.scriptId === scriptId) settle(end.status, end.result);
    });
    start({ ...args, background: true, wait_ms: 0 }).then(
      (result) => {
        const envelope = result.structuredContent as { status?: unknown; scriptId?: unknown } | undefined;
        if (envelope?.status !== 'running' || typeof envelope.scriptId !== 'string') return settle('completed', result);
        const id = (scriptId = envelope.scriptId);
        store.bind(taskId, () => void cancelScript(conversationId, id));
        const end = ended.get(id);
        ended.clear();
        if (end !== undefined) settle(end.status, end.result);
      },
      (error: unknown) => {
        unsubscribe();
        store.settle(taskId, 'failed', { content: [{ type: 'text', text: `code_execution failed: ${error instanceof Error ? error.message : String(error)}` }], isError: true });
      },
    );
  }

  /** Settles task `taskId` with the call's result: `failed` for an `isError` one (unless it ended already: a client's cancel wins). */
  function settleWith(store: SessionTaskStore, taskId: string, result: Promise<CallToolResult>): void {
    result.then(
      (r) => store.settle(taskId, r.isError === true ? 'failed' : 'completed', r),
      (error: unknown) => store.settle(taskId, 'failed', { content: [{ type: 'text', text: `the call failed: ${error instanceof Error ? error.message : String(error)}` }], isError: true }),
    );
  }

  /** `tasks/cancel`: the script is cancelled through the dispatch path, as the model's `action: "cancel"` is. */
  async function cancelScript(conversationId: string, scriptId: string): Promise<void> {
    const stream = host.openStream(conversationId);
    try {
      await host.dispatch({ inferenceId: stream.beginInference(), name: CODE_EXECUTION, input: { action: 'cancel', scriptId } });
    } catch (error) {
      logger.debug({ err: error, conversationId }, 'task cancel failed');
    } finally {
      stream.end('task cancelled');
    }
  }

  type CallRequest = Parameters<Parameters<typeof server.setRequestHandler<typeof CallToolRequestSchema>>[1]>[0];
  type CallExtra = Parameters<Parameters<typeof server.setRequestHandler<typeof CallToolRequestSchema>>[1]>[1];

  /**
   * One model call through the host's dispatch path, in its own stream. As a task (`task`, a
   * provider's task tool: gateway-tasks.ts) it outlives its request, which was answered with the
   * task: what it sends its client goes to the session (notifications) or waits for the
   * client's `tasks/result` (the provider's requests, an approval), and the task's cancel aborts it.
   */
  async function call(request: CallRequest, extra: CallExtra, conversationId: string, task?: TaskRun): Promise<CallToolResult> {
    const meta = request.params._meta;
    const stream = host.openStream(conversationId);
    const inferenceId = stream.beginInference();
    const untrack = session.track(extra.requestId, (reason) => stream.end(reason));
    const unregister = clients?.register(inferenceId, server, task ? { relatedTask: task.taskId, asking: task.asking } : extra.requestId);
    const cancel = () => stream.end(task ? 'the client cancelled the task' : 'the client cancelled the request');
    const cancelledBy = task?.signal ?? extra.signal;
    cancelledBy.addEventListener('abort', cancel, { once: true });
    // The answered request of a task has no stream left: the task's notifications go to the session's.
    const notify = (n: ServerNotification): Promise<void> => (task ? server.notification(n) : extra.sendNotification(n));
    // What a provider sends for this call (its log messages, its requests) goes to this client, related to this request.
    const serverId = gateway ? host.registry.get(request.params.name)?.serverId : undefined;
    // This server's own hub member: on stdio a 2026-era request's session shares the conversation with the 2025 session, not its member.
    const unroute = member?.callStarted({
      conversationId,
      requestId: extra.requestId,
      serverId,
      sink: notify,
      ...(task ? { task: { taskId: task.taskId, asking: task.asking } } : {}),
    });
    const forwarded = forwardedMeta(meta, [CONVERSATION_META_KEY]);
    const token = meta?.progressToken;
    const forward = token !== undefined ? progressForwarder(token, notify, logger) : undefined;
    // A task's status message is its call's latest progress message (the provider task's own, mcpl/tasks.ts).
    const onProgress = task
      ? (p: ProgressUpdate) => {
          if (p.message !== undefined) task.status(p.message);
          forward?.(p);
        }
      : forward;
    try {
      // A request that arrives as its session ends, or already cancelled, runs nothing.
      if (session.ended !== undefined || cancelledBy.aborted) {
        return { content: [{ type: 'text', text: `Tool call aborted: ${session.ended ?? 'the client cancelled the request'}` }], isError: true };
      }
      // A request that resumes a paused run (modern/durable.ts) continues its code_execution call under the same id.
      const resumes = request.params.name === CODE_EXECUTION ? resumedCallId() : undefined;
      const dispatch = () =>
        host.dispatch({
          ...(resumes !== undefined ? { resumesToolCallId: resumes } : {}),
          inferenceId,
          name: request.params.name,
          input: request.params.arguments ?? {},
          // The client's `_meta` (its trace context...) goes on to a provider's tool as it came.
          ...(gateway && forwarded ? { meta: forwarded } : {}),
          ...(onProgress ? { onProgress } : {}),
        });
      const outcome = await (around ? around(meta, dispatch) : dispatch());
      return outcome.result as CallToolResult;
    } finally {
      cancelledBy.removeEventListener('abort', cancel);
      untrack();
      unregister?.();
      unroute?.();
      stream.end('request answered');
    }
  }
  notifyScriptsFinished(host, session, server, logger);
  server.onerror = (error) => logger.debug({ err: error, conversationId: session.conversationId }, 'MCP session error');
  return server;
}
