/**
 * The requests serve passes through to its providers, registered on one session's SDK server:
 * `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `unsubscribe`, `prompts/list`, `prompts/get`, `completion/complete`, `logging/setLevel`. Each
 * is registered only when serve declares the capability (see capabilities.ts), and each goes
 * through the session's own upstream session where it has one (client-session.ts). Requests
 * go with the client's `_meta` (trace context...) but its progress token, which names nothing
 * the provider knows. Results go back as the provider sent them; a provider's error goes back
 * with its code and message, once (errors.ts); a name or URI no provider claims is an error
 * saying so. The client's cancellation cancels the provider's request.
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
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { ClientSession } from './client-session.ts';
import { passingErrors } from './errors.ts';
import type { GatewayHub } from './hub.ts';

/** MCP's "resource not found" (spec: resources, error handling). */
const RESOURCE_NOT_FOUND = -32002;

type Result = Record<string, unknown>;

/**
 * The client's request `_meta` as the provider should see it: every member but the progress
 * token (the client's, for serve's answer) and serve's own conversation key.
 */
export function forwardedMeta(meta: Record<string, unknown> | undefined, own: readonly string[] = []): Record<string, unknown> | undefined {
  if (!meta) return undefined;
  const kept = Object.entries(meta).filter(([key]) => key !== 'progressToken' && !own.includes(key));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** `params` with the client's `_meta` as forwarded. */
function withMeta<T extends { _meta?: Record<string, unknown> }>({ _meta, ...rest }: T): Result {
  const meta = forwardedMeta(_meta);
  return meta ? { ...rest, _meta: meta } : rest;
}

/**
 * Registers the pass-through handlers `capabilities` allow on `server`, for the client session
 * whose own conversation is `key`. The session joins the hub once it has initialized.
 */
export function registerGateway(server: Server, hub: GatewayHub, capabilities: ServerCapabilities, key: string): ClientSession {
  const member = hub.session(key, server, capabilities);
  const { catalog } = member;
  // A session joins once initialized: one refused before that never held anything.
  const initialized = server.oninitialized;
  server.oninitialized = () => {
    hub.join(member);
    initialized?.();
  };
  const ask = (serverId: string, method: string, params: Result, signal: AbortSignal): Promise<Result> => passingErrors(() => member.ask(serverId, method, params, signal));
  const resourceOwner = async (uri: string): Promise<string> => {
    const serverId = await catalog.resourceServer(uri);
    if (serverId === undefined) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: no server behind toolcell lists ${uri}`, { uri });
    return serverId;
  };

  // The client's roots changed: the providers it reaches ask it again.
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => hub.rootsChanged(member));

  if (capabilities.resources) {
    // Each list carries the smallest cache hint (`ttlMs`) its providers gave, when one did.
    server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({
      resources: (await passingErrors(() => catalog.listResources(extra.signal))) as never,
      ...catalog.hintOf('resources/list'),
    }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (_request, extra) => ({
      resourceTemplates: (await passingErrors(() => catalog.listTemplates(extra.signal))) as never,
      ...catalog.hintOf('resources/templates/list'),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) =>
      (await ask(await resourceOwner(request.params.uri), 'resources/read', withMeta(request.params), extra.signal)) as never,
    );
    if (capabilities.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
        const uri = request.params.uri;
        const result = await ask(await resourceOwner(uri), 'resources/subscribe', withMeta(request.params), extra.signal);
        member.subscriptions.add(uri);
        return result as never;
      });
      server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
        const uri = request.params.uri;
        member.subscriptions.delete(uri);
        const serverId = await resourceOwner(uri);
        // On serve's shared connection the provider keeps the subscription while another session holds it.
        if (!member.upstreamServers().includes(serverId) && hub.subscribed(uri)) return {};
        return (await ask(serverId, 'resources/unsubscribe', withMeta(request.params), extra.signal)) as never;
      });
    }
  }
  if (capabilities.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async (_request, extra) => ({
      prompts: (await passingErrors(() => catalog.listPrompts(extra.signal))) as never,
      ...catalog.hintOf('prompts/list'),
    }));
    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      const owner = await catalog.prompt(request.params.name);
      if (!owner) throw new McpError(ErrorCode.InvalidParams, `Prompt not found: no server behind toolcell has a prompt named ${request.params.name}`);
      return (await ask(owner.serverId, 'prompts/get', { ...withMeta(request.params), name: owner.name }, extra.signal)) as never;
    });
  }
  if (capabilities.completions) {
    server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
      const ref = request.params.ref;
      if (ref.type === 'ref/prompt') {
        const owner = await catalog.prompt(ref.name);
        if (!owner) throw new McpError(ErrorCode.InvalidParams, `Prompt not found: no server behind toolcell has a prompt named ${ref.name}`);
        return (await ask(owner.serverId, 'completion/complete', { ...withMeta(request.params), ref: { ...ref, name: owner.name } }, extra.signal)) as never;
      }
      const uri = String((ref as { uri?: unknown }).uri);
      return (await ask(await resourceOwner(uri), 'completion/complete', withMeta(request.params), extra.signal)) as never;
    });
  }
  if (capabilities.logging) {
    // Replaces the SDK's own handler: the level is the providers' to apply, each to this client's messages.
    server.setRequestHandler(SetLevelRequestSchema, async (request, extra) => {
      await passingErrors(() => hub.setLogLevel(member, request.params.level, extra.signal));
      return {};
    });
  }
  return member;
}
