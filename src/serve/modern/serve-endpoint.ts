/**
 * The {@link ModernEndpoint} of one serve transport, built from what that transport already
 * has (host, approvals' clients, gateway, telemetry): each 2026-era request runs through a
 * `createToolServer` session of its own, which leaves the gateway hub when the request is over.
 */
import type { Logger } from 'pino';
import type { ToolHost } from '../../host/tool-host.ts';
import type { ServeClients } from '../approval-clients.ts';
import type { GatewayHub } from '../gateway/hub.ts';
import type { ServeSession } from '../session.ts';
import { SERVER_INFO, createToolServer, leaveGateway, type AroundDispatch } from '../tool-server.ts';
import { ModernEndpoint } from './endpoint.ts';
import type { DurablePauses } from './durable.ts';
import { CODE_EXECUTION } from '../../code-execution/options.ts';
import { isProviderTaskTool } from '../gateway-tasks.ts';

export interface ServeEndpointParts {
  host: ToolHost;
  logger: Logger;
  around?: AroundDispatch | undefined;
  clients?: ServeClients | undefined;
  gateway?: GatewayHub | undefined;
  /** The session a request runs in, and what ends it once the request is over. */
  sessionFor: () => { session: ServeSession; release: () => void };
  /** With a store: runs waiting for approval are stored and resumed by replay (durable.ts). */
  durable?: DurablePauses | undefined;
}

export function modernEndpoint(parts: ServeEndpointParts): ModernEndpoint {
  const { host, logger, around, clients, gateway } = parts;
  // Each tools/call checks its Mcp-Param headers against the tool's schema: a name index built
  // once per tool-set version, not a copy and scan of the whole listing per request.
  let schemas: { version: number; byName: Map<string, Record<string, unknown>> } | undefined;
  const toolSchema = (name: string): Record<string, unknown> | undefined => {
    if (schemas?.version !== host.toolsVersion) {
      schemas = { version: host.toolsVersion, byName: new Map(host.listTools().map((t) => [t.name, t.inputSchema])) };
    }
    return schemas.byName.get(name);
  };
  return new ModernEndpoint({
    serverInfo: SERVER_INFO,
    capabilities: () => (gateway ? gateway.capabilities() : { tools: {} }),
    logger,
    sessionFor: parts.sessionFor,
    durable: parts.durable,
    toolSchema,
    // code_execution runs as a task for clients that declare the tasks extension (tasks.ts).
    taskTool: host.registry.get(CODE_EXECUTION) !== undefined ? CODE_EXECUTION : undefined,
    // A provider's task tool too, through the gateway (serve/gateway-tasks.ts).
    providerTask: gateway ? (name) => isProviderTaskTool(host, name) : undefined,
    // The listing is true until serve re-lists a provider whose own hint expires (mcpl/listing-expiry.ts).
    toolsTtlMs: () => {
      const due = host.servers().flatMap((c) => (c.toolsFreshUntil !== undefined ? [c.toolsFreshUntil] : []));
      return due.length > 0 ? Math.max(0, Math.min(...due) - Date.now()) : undefined;
    },
    newServer: (session) => {
      // Its session lasts one request (or one task's run): the 2025 task surface stays off here.
      const server = createToolServer(host, session, logger, around, clients, gateway, false);
      server.onclose = () => leaveGateway(server);
      return server;
    },
  });
}
