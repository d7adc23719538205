/**
 * A provider for the gateway tests, on the official SDK's McpServer over stdio: resources
 * (static, a template with completion, one to subscribe to; a subscription to a URI not
 * under test:// is refused), a prompt with an argument to
 * complete, logging, and tools whose results carry every content type, that log during the
 * call, that touch a subscribed resource, that change the tool list (once, or `churn`: many
 * times) and that answer with their request's `_meta`. `GATEWAY_PROVIDER_NAME`
 * gives its names a suffix, so two of them can run side by side. With `GATEWAY_PROVIDER_GATE`
 * naming a file, it exits at once (fails to start) until that file exists: a provider that
 * comes up late. Its `quit` tool exits the process after answering (a provider that goes away).
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { existsSync } from 'node:fs';
import { RICH_RESULT } from './rich-result.ts';

const gate = process.env.GATEWAY_PROVIDER_GATE;
if (gate && !existsSync(gate)) process.exit(1);

const suffix = process.env.GATEWAY_PROVIDER_NAME ?? '';
const server = new McpServer(
  { name: `gateway-provider${suffix}`, version: '1.0.0' },
  { capabilities: { logging: {}, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, tools: { listChanged: true } } },
);


server.registerResource('static', 'test://static', { mimeType: 'text/plain', description: 'static text' }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: 'text/plain', text: `static${suffix}` }],
}));
server.registerResource('watched', 'test://watched', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, text: 'watched' }] }));
server.registerResource(
  'item',
  new ResourceTemplate('test://item/{id}', { list: undefined, complete: { id: (value) => ['alpha', 'beta', 'gamma'].filter((v) => v.startsWith(value)) } }),
  { mimeType: 'application/json' },
  async (uri, variables) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id: variables.id }) }] }),
);
server.registerPrompt(
  `greet${suffix}`,
  { description: 'Greets someone', argsSchema: { name: z.string() } },
  ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}${suffix}` } }] }),
);

const subscribed = new Set<string>();
server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
  if (!request.params.uri.startsWith('test://')) throw new McpError(-32002, `Resource not found: ${request.params.uri}`);
  subscribed.add(request.params.uri);
  return {};
});
server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
  subscribed.delete(request.params.uri);
  return {};
});

server.registerTool(`rich${suffix}`, { description: 'Returns every content type' }, async () => RICH_RESULT as never);
server.registerTool(`log${suffix}`, { description: 'Logs twice during the call' }, async () => {
  await server.server.sendLoggingMessage({ level: 'info', logger: 'provider', data: 'first' });
  await server.server.sendLoggingMessage({ level: 'debug', logger: 'provider', data: { second: true } });
  return { content: [{ type: 'text', text: 'logged' }] };
});
server.registerTool(`touch${suffix}`, { description: 'Updates a subscribed resource (test://watched unless `uri` names another)', inputSchema: { uri: z.string().optional() } }, async ({ uri = 'test://watched' }) => {
  if (subscribed.has(uri)) await server.server.sendResourceUpdated({ uri });
  return { content: [{ type: 'text', text: `subscribed: ${[...subscribed].join(',')}` }] };
});
server.registerTool(`grow${suffix}`, { description: 'Adds a tool (tools/list_changed)' }, async () => {
  server.registerTool(`grown${suffix}`, { description: 'Added at run time' }, async () => ({ content: [{ type: 'text', text: 'grown' }] }));
  return { content: [{ type: 'text', text: 'grew' }] };
});

server.registerTool(`churn${suffix}`, { description: 'Sends tools/list_changed `count` times', inputSchema: { count: z.number().int().min(1) } }, async ({ count }) => {
  for (let i = 0; i < count; i++) await server.server.sendToolListChanged();
  return { content: [{ type: 'text', text: `churned ${count}` }] };
});
server.registerTool(`meta${suffix}`, { description: "Answers with the _meta of its request" }, async (extra) => ({
  content: [{ type: 'text', text: JSON.stringify(extra._meta ?? {}) }],
}));

server.registerTool(`quit${suffix}`, { description: 'Exits the process once answered' }, async () => {
  setTimeout(() => process.exit(0), 50);
  return { content: [{ type: 'text', text: 'bye' }] };
});

await server.connect(new StdioServerTransport());
