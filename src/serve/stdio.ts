/**
 * Serve mode over stdio: one MCP session for the life of the process (stdout is the protocol,
 * logs go to stderr). Resolves when the client goes away or the process is told to stop.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from 'pino';
import type { ToolHost } from '../host/tool-host.ts';
import { ServeSession } from './session.ts';
import type { ServeClients } from './approval-clients.ts';
import { createToolServer, type AroundDispatch } from './tool-server.ts';
import type { GatewayHub } from './gateway/hub.ts';
import { modernEndpoint } from './modern/serve-endpoint.ts';
import { interceptModern } from './modern/stdio.ts';

/** Serves `host` on this process's stdin/stdout until stdin ends, the transport closes or `stop` resolves. */
export async function serveStdio(
  host: ToolHost,
  conversationId: string,
  logger: Logger,
  stop: Promise<unknown>,
  around?: AroundDispatch,
  clients?: ServeClients,
  gateway?: GatewayHub,
): Promise<void> {
  const session = new ServeSession(conversationId, false);
  const server = createToolServer(host, session, logger, around, clients, gateway);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    void stop.then(() => resolve());
  });
  await server.connect(transport);
  // 2026-07-28 requests (no handshake) are answered beside the SDK session: see modern/.
  const modern = modernEndpoint({ host, logger, around, clients, gateway, sessionFor: () => ({ session, release: () => {} }) });
  interceptModern(transport, modern, logger);
  logger.info({ tools: host.listTools().length }, 'toolcell serving MCP on stdio');
  await closed;
  await modern.close();
  session.end('the client closed the session');
  await server.close();
}
