/**
 * The public shape of the requests an MCP server makes of its client (toolcell): the
 * embedding application's handlers and what each is told about the call the request arrived
 * during. `toolcell serve` builds its forwarding to its own MCP clients on this shape.
 */
import type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, ListRootsResult } from '@modelcontextprotocol/sdk/types.js';

/** Which server asked, and which host call (if any) the request belongs to. */
export interface ServerRequestContext {
  /** The configured id of the server that sent the request. */
  serverId: string;
  /** The conversation of the call the request arrived during, when known. */
  conversationId: string | undefined;
  /** The host's id of that call. */
  toolCallId: string | undefined;
  modelCallId: string | undefined;
  /** Set when that call was made by a script (the `code_execution` call's id). */
  parentToolCallId: string | undefined;
  origin: 'model' | 'script' | undefined;
  /**
   * How the call was found: `meta` when the request named it (its progress token or related
   * task), `only-open-call` when it was the one call open to that server (a guess a gateway
   * serving several clients on one connection must not act on); undefined when none was.
   */
  attributedBy: 'meta' | 'only-open-call' | undefined;
  /** Aborts when that call ends or the server cancels the request. */
  signal: AbortSignal;
  /**
   * Set when the request is one of a 2026-era server's `input_required` requests: the key the
   * server gave it (a gateway asks its own 2026 client under the same key).
   */
  inputKey?: string | undefined;
}

/**
 * Handlers for server→client requests. toolcell declares exactly the client capabilities it
 * has a handler for; a request without one is answered -32601 naming the capability.
 */
export interface ServerRequestHandlers {
  /** `elicitation/create` (form mode). Omitted fields with a schema default are filled in (SEP-1034). */
  elicitation?: (params: ElicitRequest['params'], ctx: ServerRequestContext) => Promise<ElicitResult>;
  /** `sampling/createMessage`. */
  sampling?: (params: CreateMessageRequest['params'], ctx: ServerRequestContext) => Promise<CreateMessageResult>;
  /** `roots/list`. */
  roots?: (ctx: ServerRequestContext) => Promise<ListRootsResult>;
  /**
   * `false`: an accepted elicitation's answer goes back exactly as the handler returned it,
   * without the schema's defaults filled in (a gateway passing its client's answer through).
   * Default true.
   */
  fillElicitationDefaults?: boolean;
}

/** What a connection knows of one of its open calls, to attribute a server request to it. */
export interface CallOwner {
  conversationId: string;
  toolCallId: string;
  modelCallId?: string | undefined;
  parentToolCallId?: string | undefined;
  origin: 'model' | 'script';
}
