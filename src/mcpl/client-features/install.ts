/**
 * Wires {@link ServerRequestHandlers} into one connection's SDK client: the capabilities to
 * declare in `initialize`, and a request handler per capability that tells the handler where
 * the request arrived (see types.ts). Which call a request arrived during is the caller's
 * `callOf`: the host's open call to that server.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ServerRequestContext, ServerRequestHandlers } from './types.ts';

/** The call a server's request arrived during, as far as the host can tell. */
export type CallOf = (serverId: string) => Omit<ServerRequestContext, 'serverId' | 'signal'>;

/** Exactly the client capabilities `handlers` can honour. */
export function clientCapabilitiesFor(handlers: ServerRequestHandlers | undefined): ClientCapabilities {
  return {
    ...(handlers?.elicitation ? { elicitation: { form: {} } } : {}),
    ...(handlers?.sampling ? { sampling: {} } : {}),
    ...(handlers?.roots ? { roots: {} } : {}),
  };
}

/** Registers a request handler on `client` for each handler given. */
export function installServerRequestHandlers(client: Client, serverId: string, handlers: ServerRequestHandlers | undefined, callOf: CallOf): void {
  if (!handlers) return;
  const context = (signal: AbortSignal): ServerRequestContext => ({ serverId, signal, ...callOf(serverId) });
  const { elicitation, sampling, roots } = handlers;
  if (elicitation) client.setRequestHandler(ElicitRequestSchema, (request, extra) => elicitation(request.params, context(extra.signal)));
  if (sampling) client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => sampling(request.params, context(extra.signal)));
  if (roots) client.setRequestHandler(ListRootsRequestSchema, (_request, extra) => roots(context(extra.signal)));
}
