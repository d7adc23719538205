/**
 * The 2025-11-25 task message queue of one serve session: what a running task asks of its
 * client (a provider's `elicitation/create` or `sampling/createMessage` for a gateway task, an
 * approval of its call) waits here until the client calls `tasks/result`, which delivers it on
 * that request's stream (the spec's `input_required` flow; the SDK's Protocol does the
 * delivering). This file owns who may queue and how much.
 *
 * Tenants never meet, and nothing grows without bound: a message is queued only for a task the
 * session's own store answers for (another session's id, or an id that never existed, is
 * refused exactly as a full queue is), at most {@link MAX_QUEUED_PER_TASK} per task, and the
 * queue of a task whose record left (expired, dropped for a newer one) is swept at the next
 * enqueue, so the session holds messages for at most its own live tasks.
 */
import type { QueuedMessage, TaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';

/**
 * Messages one task may have waiting for `tasks/result` at once: a gateway task asks one
 * question at a time in practice (its provider waits for each answer); the slack covers
 * responses queued beside them. Past it the next one is refused (the asking side gets an error).
 */
export const MAX_QUEUED_PER_TASK = 16;

/** A session's queue; `owns(taskId)` says whether the session's store answers for the task. */
export class SessionTaskQueue implements TaskMessageQueue {
  private readonly queues = new Map<string, QueuedMessage[]>();

  constructor(private readonly owns: (taskId: string) => boolean) {}

  async enqueue(taskId: string, message: QueuedMessage): Promise<void> {
    if (!this.owns(taskId)) throw new Error(`Task not found: ${taskId}`);
    for (const id of this.queues.keys()) if (!this.owns(id)) this.queues.delete(id);
    let queue = this.queues.get(taskId);
    if (queue === undefined) this.queues.set(taskId, (queue = []));
    if (queue.length >= MAX_QUEUED_PER_TASK) throw new Error(`task ${taskId} has ${MAX_QUEUED_PER_TASK} messages waiting for tasks/result already (serve's cap)`);
    queue.push(message);
  }

  async dequeue(taskId: string): Promise<QueuedMessage | undefined> {
    const queue = this.queues.get(taskId);
    const message = queue?.shift();
    if (queue?.length === 0) this.queues.delete(taskId);
    return message;
  }

  async dequeueAll(taskId: string): Promise<QueuedMessage[]> {
    const queue = this.queues.get(taskId) ?? [];
    this.queues.delete(taskId);
    return queue;
  }

  /** Messages waiting now, over every task (for tests and bounds). */
  get size(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }
}
