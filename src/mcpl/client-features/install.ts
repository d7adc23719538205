/**
 * Wires {@link ServerRequestHandlers} into one SDK `Client`: the capabilities it declares
 * (exactly those with a handler) and the request handlers, each given the context of the
 * call the request arrived during. A request without a handler gets -32601 naming the
 * capability toolcell does not have.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { INPUT_KEY_META } from '../transports/era.ts';
import { applyElicitationDefaults } from './defaults.ts';
import { attributeRequest, type OpenServerCall } from './attribution.ts';
import type { ServerRequestContext, ServerRequestHandlers } from './types.ts';

/** The client capabilities for these handlers. */
export function clientCapabilities(handlers: ServerRequestHandlers | undefined): ClientCapabilities {
  return {
    ...(handlers?.elicitation ? { elicitation: { form: {} } } : {}),
    ...(handlers?.sampling ? { sampling: {} } : {}),
    // listChanged: a gateway passes its client's roots/list_changed on (McplConnection.notify).
    ...(handlers?.roots ? { roots: { listChanged: true } } : {}),
  };
}

const CAPABILITY_OF: Record<string, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

export function installServerRequestHandlers(
  client: Client,
  serverId: string,
  handlers: ServerRequestHandlers | undefined,
  openCalls: () => ReadonlySet<OpenServerCall>,
): void {
  type Extra = RequestHandlerExtra<never, never>;
  const context = (meta: Record<string, unknown> | undefined, extra: Extra): ServerRequestContext => {
    const attributed = attributeRequest(openCalls(), meta);
    const call = attributed?.call;
    const signal = call?.signal ? AbortSignal.any([extra.signal, call.signal]) : extra.signal;
    return {
      serverId,
      conversationId: call?.owner?.conversationId,
      toolCallId: call?.owner?.toolCallId,
      modelCallId: call?.owner?.modelCallId,
      parentToolCallId: call?.owner?.parentToolCallId,
      origin: call?.owner?.origin,
      attributedBy: attributed?.by,
      signal,
      ...(typeof meta?.[INPUT_KEY_META] === 'string' ? { inputKey: meta[INPUT_KEY_META] } : {}),
    };
  };
  /** The params without the era layer's input key (the handlers get what the server sent). */
  const plain = <P extends { _meta?: Record<string, unknown> | undefined }>(params: P): P => {
    if (!params._meta || !(INPUT_KEY_META in params._meta)) return params;
    const { [INPUT_KEY_META]: _key, ...meta } = params._meta;
    const { _meta, ...rest } = params;
    return (Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest) as P;
  };
  const elicitation = handlers?.elicitation;
  if (handlers && elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const result = await elicitation(plain(request.params), context(request.params._meta, extra as Extra));
      return handlers.fillElicitationDefaults === false ? result : applyElicitationDefaults(request.params, result);
    });
  }
  const sampling = handlers?.sampling;
  if (sampling) client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => sampling(plain(request.params), context(request.params._meta, extra as Extra)));
  const roots = handlers?.roots;
  if (roots) client.setRequestHandler(ListRootsRequestSchema, (request, extra) => roots(context(request.params?._meta, extra as Extra)));
  client.fallbackRequestHandler = async (request) => {
    const capability = CAPABILITY_OF[request.method];
    if (capability) {
      throw new McpError(-32601, `${request.method}: toolcell's client has no ${capability} capability (no serverRequests.${capability} handler is configured)`);
    }
    throw new McpError(-32601, `Method not found: ${request.method}`);
  };
}
