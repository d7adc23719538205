/**
 * `toolcell serve`: the tool host as an MCP server on stdio. An MCP client (an agent framework,
 * a desktop app) sees every tool of the configured servers plus `code_execution`; each of its
 * `tools/call` requests is one model call through the host's dispatch path, so observers see
 * it — and every call a script makes — as usual. Logs go to stderr; stdout is the protocol.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { ToolHost } from '../host/tool-host.ts';
import { registerCodeExecution, type CodeExecution } from '../code-execution/index.ts';
import { loadServeConfig } from './serve-config.ts';

/** `_meta` key a client may set on `tools/call` to name the conversation the call belongs to. */
export const CONVERSATION_META_KEY = 'agent-framework/conversationId';

export async function runServe(configPath: string | undefined): Promise<number> {
  const config = loadServeConfig(configPath);
  const logger = pino({ name: 'toolcell', level: process.env.TOOLCELL_LOG_LEVEL ?? 'info' }, pino.destination(2));
  const host = new ToolHost({ logger });
  let codeExecution: CodeExecution | undefined;
  const shutdown = async () => {
    await codeExecution?.close();
    await host.close();
  };
  try {
    for (const server of config.servers) await host.connectServer(server);
    if (config.codeExecution !== false) codeExecution = registerCodeExecution(host, { whenBusy: 'wait', ...config.codeExecution });
  } catch (error) {
    await shutdown();
    throw error;
  }

  const server = new Server({ name: 'toolcell', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: host.listTools().map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object' },
      ...(t.outputSchema ? { outputSchema: t.outputSchema as { type: 'object' } } : {}),
      _meta: { 'mcpl/class': t.classes },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const named = request.params._meta?.[CONVERSATION_META_KEY];
    const conversationId = typeof named === 'string' && named !== '' ? named : config.conversationId;
    // Each request is its own stream: the client cancelling it aborts this call only.
    const stream = host.openStream(conversationId);
    const inferenceId = stream.beginInference();
    const cancel = () => stream.end('the client cancelled the request');
    extra.signal.addEventListener('abort', cancel, { once: true });
    try {
      const outcome = await host.dispatch({ inferenceId, name: request.params.name, input: request.params.arguments ?? {} });
      return outcome.result as { content: { type: 'text'; text: string }[]; isError?: boolean };
    } finally {
      extra.signal.removeEventListener('abort', cancel);
      stream.end('request answered');
    }
  });

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  await server.connect(transport);
  logger.info({ tools: host.listTools().length }, 'toolcell serving MCP on stdio');
  await closed;
  await shutdown();
  return 0;
}
