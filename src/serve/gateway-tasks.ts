/**
 * A provider's task tool called by a serve client as a task (MCP 2025-11-25 task augmentation).
 *
 * Decided: the client's task is a serve-side record (script-tasks.ts over task-records.ts:
 * per-session ownership, the per-session cap, the task's life) whose run is the ordinary
 * gateway call — one dispatch through `ToolHost`, in the background — exactly as
 * `code_execution`'s task runs its script. So approvals, gates and budgets apply, observers see
 * one opening and one terminal, and serve's connection calls the provider's tool as a task of
 * its own (src/mcpl/tasks.ts: `tools/call` with `params.task`, `tasks/get`, `tasks/result`,
 * `tasks/cancel` on abort). The client's task follows that call:
 * - `working` while it runs, its `statusMessage` the call's latest progress message (the
 *   provider task's status message, as mcpl/tasks.ts reports it);
 * - `input_required` while a question for the call waits for the client — the provider's
 *   `elicitation/create` / `sampling/createMessage` for its task, or an approval of the call —
 *   queued for the client's `tasks/result` (task-queue.ts), back to `working` once answered;
 * - `completed`, or `failed` for an `isError` result (the provider's own, or the call's error);
 * - `cancelled` by the client's `tasks/cancel`, which aborts the dispatch: serve's connection
 *   then sends the provider `tasks/cancel` for its task.
 */
import type { ToolHost } from '../host/tool-host.ts';
import { taskSupportOf } from '../mcpl/tasks.ts';
import type { SessionTaskStore } from './script-tasks.ts';
import { providerListing } from './served-tools.ts';

/** Whether `name` is a provider's tool that takes task augmentation (`execution.taskSupport` `"required"` or `"optional"`). */
export function isProviderTaskTool(host: ToolHost, name: string): boolean {
  const listing = providerListing(host, name);
  return listing !== undefined && taskSupportOf(listing) !== 'forbidden';
}

/** What a gateway call run as a task needs besides its request: the task it settles and how it is told of questions and progress. */
export interface TaskRun {
  taskId: string;
  /** Aborts when the client cancels the task (or its record expires). */
  signal: AbortSignal;
  /** A question for the call is waiting for the client; the returned function is called once it is answered (or given up). */
  asking: () => () => void;
  /** The call's latest progress message: the task's status message. */
  status: (message: string) => void;
}

/** Makes the {@link TaskRun} of task `taskId` of `store`: its cancel is bound, its questions move it to `input_required` and back. */
export function taskRun(store: SessionTaskStore, taskId: string): TaskRun {
  const controller = new AbortController();
  store.bind(taskId, () => controller.abort(new Error('the client cancelled the task')));
  let open = 0;
  return {
    taskId,
    signal: controller.signal,
    asking: () => {
      if (open++ === 0) store.mark(taskId, 'input_required');
      let done = false;
      return () => {
        if (done) return;
        done = true;
        if (--open === 0) store.mark(taskId, 'working');
      };
    },
    status: (message) => store.mark(taskId, open > 0 ? 'input_required' : 'working', message),
  };
}
