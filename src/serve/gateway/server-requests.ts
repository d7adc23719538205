/**
 * A provider's requests of its client, forwarded to serve's MCP client whose call is running:
 * `elicitation/create`, `sampling/createMessage` and `roots/list` arriving during a call of
 * conversation C go to the client whose `tools/call` opened C's call — related to that
 * request, so over HTTP they ride its stream — never to another client. A client that did not
 * declare the capability, or a request arriving outside any call, is declined with an error
 * that says why (the provider sees it as its request's error).
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ServerRequestContext, ServerRequestHandlers } from '../../mcpl/client-features/types.ts';

interface RunningCall {
  server: Server;
  requestId: RequestId;
}

/** serve's MCP clients by the conversation of the call each is running. */
export class CallOwners {
  private readonly byConversation = new Map<string, RunningCall[]>();

  /** `server`'s request `requestId` runs a call of `conversationId` until the returned function is called. */
  running(conversationId: string, server: Server, requestId: RequestId): () => void {
    const call = { server, requestId };
    const list = this.byConversation.get(conversationId) ?? [];
    list.push(call);
    this.byConversation.set(conversationId, list);
    return () => {
      const at = list.indexOf(call);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0 && this.byConversation.get(conversationId) === list) this.byConversation.delete(conversationId);
    };
  }

  /** The client to ask for a request that arrived in `ctx` (the latest call of its conversation). */
  ownerOf(ctx: ServerRequestContext, what: string): RunningCall {
    const list = ctx.conversationId !== undefined ? this.byConversation.get(ctx.conversationId) : undefined;
    const call = list?.[list.length - 1];
    if (!call) throw new McpError(ErrorCode.InvalidRequest, `${what} declined: server ${ctx.serverId} asked outside any call of a toolcell client, so there is nobody to ask`);
    return call;
  }
}

function declined(ctx: ServerRequestContext, what: string, capability: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, `${what} declined: the MCP client whose call server ${ctx.serverId} is answering did not declare the "${capability}" capability`);
}

/** The handlers serve gives its host: each forwards to the owner of the call. */
export function forwardServerRequests(owners: CallOwners): ServerRequestHandlers {
  return {
    elicitation: async (params, ctx) => {
      const { server, requestId } = owners.ownerOf(ctx, 'elicitation/create');
      if (!server.getClientCapabilities()?.elicitation) throw declined(ctx, 'elicitation/create', 'elicitation');
      return server.elicitInput(params, { relatedRequestId: requestId, signal: ctx.signal });
    },
    sampling: async (params, ctx) => {
      const { server, requestId } = owners.ownerOf(ctx, 'sampling/createMessage');
      if (!server.getClientCapabilities()?.sampling) throw declined(ctx, 'sampling/createMessage', 'sampling');
      return server.createMessage(params, { relatedRequestId: requestId, signal: ctx.signal });
    },
    roots: async (ctx) => {
      const { server, requestId } = owners.ownerOf(ctx, 'roots/list');
      if (!server.getClientCapabilities()?.roots) throw declined(ctx, 'roots/list', 'roots');
      return server.listRoots(undefined, { relatedRequestId: requestId, signal: ctx.signal });
    },
  };
}
