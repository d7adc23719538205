/**
 * The requests serve passes through to its providers, registered on one session's SDK server:
 * `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `unsubscribe`, `prompts/list`, `prompts/get`, `completion/complete`, `logging/setLevel`. Each
 * is registered only when serve declares the capability (see capabilities.ts). Results go back
 * as the provider sent them; a provider's error goes back with its code; a name or URI no
 * provider claims is an error saying so. The client's cancellation cancels the provider's request.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { PassThrough } from './catalog.ts';
import { providersOf } from './capabilities.ts';
import type { GatewayHub } from './hub.ts';

/** MCP's "resource not found" (spec: resources, error handling). */
const RESOURCE_NOT_FOUND = -32002;

type Result = Record<string, unknown>;

/** Registers the pass-through handlers `capabilities` allow on `server`; returns what undoes the session's membership. */
export function registerGateway(server: Server, hub: GatewayHub, capabilities: ServerCapabilities): () => void {
  const { host, catalog } = hub;
  const member = hub.join(server, capabilities);
  const ask = (serverId: string, method: string, params: Result, signal: AbortSignal): Promise<Result> =>
    host.requestServer(serverId, method, params, PassThrough, { signal }) as Promise<Result>;
  const resourceOwner = async (uri: string): Promise<string> => {
    const serverId = await catalog.resourceServer(uri);
    if (serverId === undefined) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: no server behind toolcell lists ${uri}`, { uri });
    return serverId;
  };
  // The client's `_meta` (its progress token) means nothing to the provider.
  const withoutMeta = <T extends { _meta?: unknown }>({ _meta, ...rest }: T): Omit<T, '_meta'> => rest;

  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({ resources: (await catalog.listResources(extra.signal)) as never }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (_request, extra) => ({ resourceTemplates: (await catalog.listTemplates(extra.signal)) as never }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) =>
      (await ask(await resourceOwner(request.params.uri), 'resources/read', withoutMeta(request.params), extra.signal)) as never,
    );
    if (capabilities.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
        const uri = request.params.uri;
        const result = await ask(await resourceOwner(uri), 'resources/subscribe', { uri }, extra.signal);
        member.subscriptions.add(uri);
        return result as never;
      });
      server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
        const uri = request.params.uri;
        member.subscriptions.delete(uri);
        // The provider keeps the subscription while another session still holds it.
        if (hub.subscribed(uri)) return {};
        return (await ask(await resourceOwner(uri), 'resources/unsubscribe', { uri }, extra.signal)) as never;
      });
    }
  }
  if (capabilities.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async (_request, extra) => ({ prompts: (await catalog.listPrompts(extra.signal)) as never }));
    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      const owner = await catalog.prompt(request.params.name);
      if (!owner) throw new McpError(ErrorCode.InvalidParams, `Prompt not found: no server behind toolcell has a prompt named ${request.params.name}`);
      return (await ask(owner.serverId, 'prompts/get', { ...withoutMeta(request.params), name: owner.name }, extra.signal)) as never;
    });
  }
  if (capabilities.completions) {
    server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
      const ref = request.params.ref;
      if (ref.type === 'ref/prompt') {
        const owner = await catalog.prompt(ref.name);
        if (!owner) throw new McpError(ErrorCode.InvalidParams, `Prompt not found: no server behind toolcell has a prompt named ${ref.name}`);
        return (await ask(owner.serverId, 'completion/complete', { ...withoutMeta(request.params), ref: { ...ref, name: owner.name } }, extra.signal)) as never;
      }
      const uri = String((ref as { uri?: unknown }).uri);
      return (await ask(await resourceOwner(uri), 'completion/complete', withoutMeta(request.params), extra.signal)) as never;
    });
  }
  if (capabilities.logging) {
    // Replaces the SDK's own handler: the level is the providers' to apply, each to its messages.
    server.setRequestHandler(SetLevelRequestSchema, async (request, extra) => {
      hub.logLevel = request.params.level;
      const results = await Promise.allSettled(providersOf(host, 'logging').map((id) => ask(id, 'logging/setLevel', { level: request.params.level }, extra.signal)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed && results.every((r) => r.status === 'rejected')) throw failed.reason;
      return {};
    });
  }
  return member.leave;
}
