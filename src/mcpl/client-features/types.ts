/**
 * Requests a server makes of its client — `elicitation/create`, `sampling/createMessage`,
 * `roots/list` — answered by handlers the embedding application gives `new ToolHost({
 * serverRequests })`. Each handler is told which server asks and during which call (the
 * conversation, the call, model's or script's, and its parent), so it can ask the right person
 * or model. toolcell declares to servers exactly the capabilities it has handlers for.
 *
 * (Written to the shape the `mcp-client` work defines; that branch owns this file.)
 */
import type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, ListRootsResult } from '@modelcontextprotocol/sdk/types.js';

/** Where a server's request arrived: the server, and the call of the host it arrived during (undefined when none can be told). */
export interface ServerRequestContext {
  serverId: string;
  conversationId: string | undefined;
  toolCallId: string | undefined;
  modelCallId: string | undefined;
  parentToolCallId: string | undefined;
  origin: 'model' | 'script' | undefined;
  /** Aborted when the server cancels its request or the connection goes. */
  signal: AbortSignal;
}

/** The handlers for requests servers make; a missing one means the capability is not declared. */
export interface ServerRequestHandlers {
  elicitation?: (params: ElicitRequest['params'], ctx: ServerRequestContext) => Promise<ElicitResult>;
  sampling?: (params: CreateMessageRequest['params'], ctx: ServerRequestContext) => Promise<CreateMessageResult>;
  roots?: (ctx: ServerRequestContext) => Promise<ListRootsResult>;
}
