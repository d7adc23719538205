/**
 * Serve mode's way to a person: each `tools/call` registers its MCP client under the inference
 * it opened, so that an approval request for that inference — the call itself, its script's
 * up-front request, a script call the scan missed — reaches the client that made it, as an
 * `elicitation/create` request related to that `tools/call`.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitingClient } from '../approvals/elicitation-gate.ts';

export class ServeClients {
  private readonly byInference = new Map<string, ElicitingClient>();

  /** How long a person may take to answer before the request counts as declined. */
  constructor(private readonly answerTimeoutMs: number) {}

  /**
   * The client of `inferenceId` until the returned function is called (the request is answered).
   * `via` is the client's request the approval rides, or — for a call run as a task, whose
   * request was answered with the task (gateway-tasks.ts) — the task: the approval then waits
   * for the client's `tasks/result`, and `asking` marks the task `input_required` meanwhile.
   */
  register(inferenceId: string, server: Server, via: RequestId | { relatedTask: string; asking: () => () => void }): () => void {
    const task = typeof via === 'object' ? via : undefined;
    const client: ElicitingClient = {
      canElicit: () => server.getClientCapabilities()?.elicitation !== undefined,
      elicit: async (form, signal) => {
        const answered = task?.asking();
        try {
          const result = await server.elicitInput(
            { mode: 'form', message: form.message, requestedSchema: form.requestedSchema, _meta: form._meta },
            { signal, timeout: this.answerTimeoutMs, ...(task ? { relatedTask: { taskId: task.relatedTask } } : { relatedRequestId: via as RequestId }) },
          );
          return { action: result.action, ...(result.content ? { content: result.content as Record<string, unknown> } : {}) };
        } finally {
          answered?.();
        }
      },
    };
    this.byInference.set(inferenceId, client);
    return () => {
      if (this.byInference.get(inferenceId) === client) this.byInference.delete(inferenceId);
    };
  }

  clientFor(inferenceId: string): ElicitingClient | undefined {
    return this.byInference.get(inferenceId);
  }
}
