/**
 * MCP 2025-11-25 tasks for provider tools: which tools must be called as tasks, and calling
 * them so.
 *
 * A tool whose `execution.taskSupport` is `'required'` can only be called with
 * `params.task` (task augmentation); a plain `tools/call` is refused by the server. Such a
 * tool is called as a task when the server declares `capabilities.tasks.requests.tools.call`;
 * without that declaration it cannot be called at all, and listing it would give the model a
 * tool that always fails, so it is left out with a diagnostic naming it (issue 18's allowed
 * fallback). `'optional'` and `'forbidden'` (or absent) tools are called plainly, which the
 * spec allows for both.
 *
 * Why `'optional'` is called plainly, not as a task: a task is polled (`tasks/get` every
 * `pollInterval`, commonly 1 s), so every call would take at least one interval longer, and
 * its progress would arrive only as polled status messages; a plain call gets the server's
 * progress notifications and requests as they happen. What a task adds — a result that
 * outlives the request, fetched later — buys toolcell nothing, since a call lives exactly as
 * long as its dispatch (aborted with it, timed out with it).
 *
 * A running task may need input (`input_required`): the server queues its request
 * (`elicitation/create`, `sampling/createMessage`) for `tasks/result`, which the SDK calls on
 * seeing that status. The request names its task (`_meta["io.modelcontextprotocol/related-task"]`),
 * and {@link TaskCallOptions.onCreated} lets the connection tie the task id to its call, so
 * the request is attributed to the call it belongs to (client-features/attribution.ts).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type CallToolRequest, type CallToolResult, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ServerToolListing } from '../host/registry.ts';
import type { ProgressUpdate } from '../host/types.ts';
import { TASKS_EXTENSION, withoutTaskId } from './transports/era-tasks.ts';

/** The diagnostic code for a tool left out because it can only be called as a task. */
export const TASK_REQUIRED_UNSUPPORTED = 'task-required-unsupported';

/** A tool's declared task support; `'forbidden'` when absent or not one of the spec's values. */
export function taskSupportOf(tool: unknown): 'required' | 'optional' | 'forbidden' {
  const execution = (tool as { execution?: unknown } | null)?.execution;
  const value = execution !== null && typeof execution === 'object' ? (execution as { taskSupport?: unknown }).taskSupport : undefined;
  return value === 'required' || value === 'optional' ? value : 'forbidden';
}

/** True when a 2026-07-28 server declared the `io.modelcontextprotocol/tasks` extension (it takes task calls that declare it: transports/era-tasks.ts). */
export function serverOffersTasksExtension(capabilities: ServerCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: unknown } | undefined)?.extensions;
  const entry = extensions !== null && typeof extensions === 'object' ? (extensions as Record<string, unknown>)[TASKS_EXTENSION] : undefined;
  return entry !== null && typeof entry === 'object';
}

/** True when the server declared that it accepts `tools/call` as a task. */
export function serverCallsToolsAsTasks(capabilities: ServerCapabilities | undefined): boolean {
  const tasks = (capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
  return tasks?.requests?.tools?.call !== undefined;
}

/**
 * Splits a listing into the tools to list and the names of those left out; `asTasks` names
 * the listed tools that must be called as tasks.
 */
export function partitionByTaskSupport(
  tools: readonly ServerToolListing[],
  serverCallsTasks: boolean,
): { callable: ServerToolListing[]; asTasks: Set<string>; leftOut: string[] } {
  const callable: ServerToolListing[] = [];
  const asTasks = new Set<string>();
  const leftOut: string[] = [];
  for (const tool of tools) {
    if (taskSupportOf(tool) !== 'required') callable.push(tool);
    else if (serverCallsTasks) {
      callable.push(tool);
      asTasks.add(tool.name);
    } else leftOut.push(tool.name);
  }
  return { callable, asTasks, leftOut };
}

/** The time-to-live toolcell asks for a task it creates: the call's own timeout, the server may shorten it. */
export interface TaskCallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Each new status message of the task, as a progress report (the task's own progress). */
  onStatus?: (status: { status: string; statusMessage?: string }) => void;
  /** The server created the task: its id names the task in the requests it makes of us while it runs (input_required). */
  onCreated?: (taskId: string) => void;
}

/**
 * Calls a tool as a task (`tools/call` with `params.task`): the server answers a
 * `CreateTaskResult`, the SDK polls `tasks/get` until a terminal status and then fetches
 * `tasks/result`. When `signal` aborts or the timeout passes, the server is sent
 * `tasks/cancel` for the task. Resolves with the tool's result — for a task that ended
 * `failed`, the result `tasks/result` holds (the tool's `isError` result); rejects with an
 * error that says how the task ended when there is no result.
 */
export async function callToolAsTask(client: Client, params: CallToolRequest['params'], options: TaskCallOptions): Promise<CallToolResult> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let taskId: string | undefined;
  let last: { status: string; statusMessage?: string } | undefined;
  const stream = client.experimental.tasks.callToolStream(params, CallToolResultSchema, {
    task: { ttl: options.timeoutMs },
    timeout: options.timeoutMs,
    signal,
  });
  for await (const message of stream) {
    if (message.type === 'taskCreated') {
      taskId = message.task.taskId;
      options.onCreated?.(taskId);
    }
    else if (message.type === 'taskStatus') {
      const { status, statusMessage } = message.task;
      if (status !== last?.status || statusMessage !== last?.statusMessage) options.onStatus?.({ status, ...(statusMessage !== undefined ? { statusMessage } : {}) });
      last = { status, ...(statusMessage !== undefined ? { statusMessage } : {}) };
    } else if (message.type === 'result') return message.result as CallToolResult;
    else if (message.type === 'error') {
      // The server's task id is the connection's, not the caller's: no error names it (a gateway
      // client sees only serve's own task, docs/serve-gateway.md), so the SDK's "Task <id> ..." is reworded.
      const detail = last?.statusMessage ? `: ${last.statusMessage}` : '';
      if (signal.aborted && taskId !== undefined) {
        const why = options.signal?.aborted ? 'the call was aborted' : `timed out after ${options.timeoutMs} ms`;
        await client.experimental.tasks.cancelTask(taskId, { timeout: 5_000 }).then(
          () => undefined,
          (error: Error) => {
            throw new Error(`${why}, and tasks/cancel of the server's task failed: ${withoutTaskId(error.message, taskId)}`);
          },
        );
        throw new Error(`${why}; the server's task was cancelled (tasks/cancel)`);
      }
      // A failed task may hold the tool's own error result (isError): that is what the caller should see.
      if (last?.status === 'failed' && taskId !== undefined) {
        const stored = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { timeout: options.timeoutMs }).then(
          (result) => result as CallToolResult,
          (error: Error) => {
            throw new Error(`the server's task failed${detail} (tasks/result: ${withoutTaskId(error.message, taskId)})`);
          },
        );
        return stored;
      }
      // The server cancelled its task on its own (no tasks/cancel of ours): the call fails, saying so.
      if (last?.status === 'cancelled') throw new Error(`the server cancelled its task${detail}`);
      throw new Error(`${withoutTaskId(message.error.message, taskId)}${detail}`);
    }
  }
  throw new Error(taskId === undefined ? 'the server created no task' : 'the server\'s task ended without a result');
}

/** Turns a task's status changes into numbered progress reports carrying the status message. */
export function statusProgress(onProgress: (p: ProgressUpdate) => void): NonNullable<TaskCallOptions['onStatus']> {
  let step = 0;
  return ({ status, statusMessage }) => onProgress({ progress: ++step, message: statusMessage ?? status });
}
