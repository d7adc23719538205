/**
 * Serve mode over stdio: one MCP session for the life of the process (stdout is the protocol,
 * logs go to stderr). Resolves when the client goes away or the process is told to stop, once
 * the session released everything it held (see session.ts: its calls, hub membership, and the
 * conversations it used).
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from 'pino';
import type { ToolHost } from '../host/tool-host.ts';
import { endServeSession, ServeSession } from './session.ts';
import type { ServeClients } from './approval-clients.ts';
import { createToolServer, type AroundDispatch } from './tool-server.ts';
import type { GatewayHub } from './gateway/hub.ts';
import { modernEndpoint } from './modern/serve-endpoint.ts';
import type { DurablePauses } from './modern/durable.ts';
import { interceptModern } from './modern/stdio.ts';

export interface StdioServeOptions {
  /** Conversation of requests that name none. */
  conversationId: string;
  logger: Logger;
  /** Serving stops when this settles (a signal). */
  stop: Promise<unknown>;
  around?: AroundDispatch;
  clients?: ServeClients;
  gateway?: GatewayHub;
  /** With a store: 2026-era runs waiting for approval are stored and resumed by replay (modern/durable.ts). */
  durable?: DurablePauses;
  /** The protocol's input and output (default: this process's stdin and stdout). */
  stdin?: Readable;
  stdout?: Writable;
}

/** Serves `host` on stdin/stdout until stdin ends, the transport closes or `stop` settles. */
export async function serveStdio(host: ToolHost, options: StdioServeOptions): Promise<void> {
  const { logger } = options;
  const stdin = options.stdin ?? process.stdin;
  const session = new ServeSession(options.conversationId, false);
  const server = createToolServer(host, session, logger, options.around, options.clients, options.gateway);
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    stdin.once('end', () => resolve());
    void options.stop.then(
      () => resolve(),
      () => resolve(),
    );
  });
  await server.connect(transport);
  // 2026-07-28 requests (no handshake) are answered beside the SDK session: see modern/.
  const modern = modernEndpoint({ host, logger, around: options.around, clients: options.clients, gateway: options.gateway, durable: options.durable, sessionFor: () => ({ session, release: () => {} }) });
  interceptModern(transport, modern, logger);
  logger.info({ tools: host.listTools().length }, 'toolcell serving MCP on stdio');
  await closed;
  await modern.close();
  try {
    await endServeSession(host, session, 'the client closed the session');
  } catch (error) {
    logger.warn({ err: error }, 'releasing what the session held failed');
  }
  await server.close();
}
