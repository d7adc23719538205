/**
 * Which open call a server→client request belongs to. The rule (docs/mcp-client.md):
 * 1. the request's `_meta.progressToken` (or related-request id) names one of our open calls: that one;
 * 2. else its `_meta["io.modelcontextprotocol/related-task"].taskId` names the task of one of
 *    our open calls (a task asking for input: `input_required`): that one;
 * 3. else exactly one call to that server is open: that one;
 * 4. else unattributed (the context's call fields are undefined).
 * The SDK does not tell a client which Streamable HTTP POST stream a request arrived on, so
 * HTTP and stdio follow the same rule.
 */
import { RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import type { CallOwner } from './types.ts';

export interface OpenServerCall {
  owner: CallOwner | undefined;
  signal: AbortSignal | undefined;
  progressToken: string | number | undefined;
  /** The server's task id, once a call made as a task was answered with one. */
  taskId?: string | undefined;
}

/** How a request was attributed: by what it carries (rules 1, 2), or only because one call was open (rule 3). */
export type Attribution = 'meta' | 'only-open-call';

export function attributeRequest(open: ReadonlySet<OpenServerCall>, meta: Record<string, unknown> | undefined): { call: OpenServerCall; by: Attribution } | undefined {
  const token = meta?.progressToken;
  if (token !== undefined) {
    for (const call of open) if (call.progressToken === token) return { call, by: 'meta' };
  }
  const related = meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
  if (typeof related?.taskId === 'string') {
    for (const call of open) if (call.taskId === related.taskId) return { call, by: 'meta' };
  }
  if (open.size === 1) return { call: open.values().next().value!, by: 'only-open-call' };
  return undefined;
}
