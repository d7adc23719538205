/**
 * A provider's requests of its client (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`), forwarded to one of serve's MCP clients: the one a {@link TargetOf} names from
 * the upstream session the request came on and the call it belongs to (see hub.ts). Nothing is
 * guessed here: a request no client can be named for is declined with an error that says why,
 * and the provider sees it as its request's error.
 *
 * What passes is passed unchanged: the provider's params as they came (no `mode` added, no
 * schema rewritten) and the client's answer as it came (no defaults filled in, no `format` or
 * schema check — the provider is the judge of its own schema), and the client's error with
 * its own code and message (errors.ts).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CreateMessageResultSchema,
  CreateMessageResultWithToolsSchema,
  ElicitResultSchema,
  ErrorCode,
  ListRootsResultSchema,
  McpError,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerRequestContext, ServerRequestHandlers } from '../../mcpl/client-features/types.ts';
import { INPUT_KEY_META } from '../../mcpl/transports/era.ts';
import { answersExchange } from '../modern/exchange.ts';
import { passingErrors } from './errors.ts';

/** The client a provider's request goes to, and the client's request it belongs to (over HTTP: the stream it rides). */
export interface RequestTarget {
  server: Server;
  /** Undefined: the client's session as a whole (over HTTP, its standalone GET stream). */
  relatedRequestId: RequestId | undefined;
  /** The client's task the request belongs to: it is queued for the client's `tasks/result`, the task `input_required` meanwhile. */
  task?: { taskId: string; asking: () => () => void };
}

/** Names the client for a provider's request; throws (an `McpError` saying why) when there is none. */
export type TargetOf = (ctx: ServerRequestContext, what: string) => RequestTarget;

function declined(ctx: ServerRequestContext, what: string, capability: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, `${what} declined: the MCP client whose call server ${ctx.serverId} is answering did not declare the "${capability}" capability`);
}

/** The handlers serve gives a provider connection: each forwards, unchanged, to the client `target` names. */
export function forwardServerRequests(target: TargetOf): ServerRequestHandlers {
  const options = (to: RequestTarget, ctx: ServerRequestContext) => ({
    ...(to.relatedRequestId !== undefined ? { relatedRequestId: to.relatedRequestId } : {}),
    ...(to.task !== undefined ? { relatedTask: { taskId: to.task.taskId } } : {}),
    signal: ctx.signal,
  });
  // A request for a client's task: the task is input_required until the client answers it.
  const asking = async <T>(to: RequestTarget, send: () => Promise<T>): Promise<T> => {
    const answered = to.task?.asking();
    try {
      return await send();
    } finally {
      answered?.();
    }
  };
  // A 2026 provider's input key goes to a 2026 client's exchange, which asks under it (and takes it out).
  const keyed = <P extends { _meta?: Record<string, unknown> | undefined }>(to: RequestTarget, ctx: ServerRequestContext, params: P): P =>
    ctx.inputKey !== undefined && answersExchange(to.server) ? { ...params, _meta: { ...params._meta, [INPUT_KEY_META]: ctx.inputKey } } : params;
  return {
    fillElicitationDefaults: false,
    elicitation: async (params, ctx) => {
      const to = target(ctx, 'elicitation/create');
      if (!to.server.getClientCapabilities()?.elicitation) throw declined(ctx, 'elicitation/create', 'elicitation');
      return asking(to, () => passingErrors(() => to.server.request({ method: 'elicitation/create', params: keyed(to, ctx, params) }, ElicitResultSchema, options(to, ctx))));
    },
    sampling: async (params, ctx) => {
      const to = target(ctx, 'sampling/createMessage');
      if (!to.server.getClientCapabilities()?.sampling) throw declined(ctx, 'sampling/createMessage', 'sampling');
      // With tools, the answer may hold tool_use blocks: parsed by the schema that admits them.
      const schema = params.tools || params.toolChoice ? CreateMessageResultWithToolsSchema : CreateMessageResultSchema;
      return asking(to, () => passingErrors(() => to.server.request({ method: 'sampling/createMessage', params: keyed(to, ctx, params) }, schema as typeof CreateMessageResultSchema, options(to, ctx))));
    },
    roots: async (ctx) => {
      const to = target(ctx, 'roots/list');
      if (!to.server.getClientCapabilities()?.roots) throw declined(ctx, 'roots/list', 'roots');
      const params = keyed(to, ctx, {} as { _meta?: Record<string, unknown> });
      return asking(to, () => passingErrors(() => to.server.request({ method: 'roots/list', ...(params._meta ? { params } : {}) }, ListRootsResultSchema, options(to, ctx))));
    },
  };
}
