/**
 * Our reference MCP server for the official conformance suite's server checks
 * (`@modelcontextprotocol/conformance server --suite all`): the tools, resources, prompts and
 * completions each scenario's description asks for, on the SDK's low-level `Server` (so tool
 * input schemas go out exactly as written here) over stateful Streamable HTTP, one SDK server
 * per session, with an event store so a stream closed mid-call can be resumed. run-gateway.ts
 * runs the suite against it alone, then through `toolcell serve --http` in front of it.
 *
 * Usage: node --import tsx reference-server.ts PORT   (prints `listening <url>` once bound)
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  isInitializeRequest,
  type CallToolResult,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';

/** A 1×1 PNG and a silent WAV: the smallest valid media of each kind. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';
const NO_ARGS = { type: 'object', properties: {} } as const;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const TOOLS = [
  { name: 'test_simple_text', description: 'Returns one text block', inputSchema: NO_ARGS },
  { name: 'test_image_content', description: 'Returns a PNG image', inputSchema: NO_ARGS },
  { name: 'test_audio_content', description: 'Returns a WAV clip', inputSchema: NO_ARGS },
  { name: 'test_embedded_resource', description: 'Returns an embedded text resource', inputSchema: NO_ARGS },
  { name: 'test_multiple_content_types', description: 'Returns text, an image and a resource', inputSchema: NO_ARGS },
  { name: 'test_tool_with_logging', description: 'Logs three messages while it runs', inputSchema: NO_ARGS },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100', inputSchema: NO_ARGS },
  { name: 'test_error_handling', description: 'Always fails (isError)', inputSchema: NO_ARGS },
  { name: 'test_reconnection', description: 'Closes its SSE stream before answering (resume with Last-Event-ID)', inputSchema: NO_ARGS },
  { name: 'test_sampling', description: 'Asks the client to sample', inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] } },
  { name: 'test_elicitation', description: 'Asks the client user for a username and email', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
  { name: 'test_elicitation_sep1034_defaults', description: 'Elicits with a default for each primitive type', inputSchema: NO_ARGS },
  { name: 'test_elicitation_sep1330_enums', description: 'Elicits with each enum form', inputSchema: NO_ARGS },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { $anchor: 'address', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
      // Composition and conditional keywords (SEP-2106, checked by the 0.2.0 suite): kept as written.
      allOf: [{ anyOf: [{ required: ['name'] }, { required: ['address'] }] }],
      if: { required: ['address'] },
      then: { properties: { name: { type: 'string', minLength: 1 } } },
      else: { properties: { name: { type: 'string' } } },
    },
  },
];

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

function newServer(): Server {
  const server = new Server(
    { name: 'toolcell-conformance-reference', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {} } },
  );
  const subscriptions = new Set<string>();
  const log = (level: LoggingLevel, data: string, relatedRequestId: string | number) =>
    server.notification({ method: 'notifications/message', params: { level, logger: 'reference', data } }, { relatedRequestId });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS as never }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case 'test_simple_text':
        return text('This is a simple text response for testing.');
      case 'test_image_content':
        return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] };
      case 'test_audio_content':
        return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
      case 'test_embedded_resource':
        return { content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] };
      case 'test_multiple_content_types':
        return {
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: PNG, mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
          ],
        };
      case 'test_tool_with_logging':
        await log('info', 'Tool execution started', extra.requestId);
        await pause(50);
        await log('info', 'Tool processing data', extra.requestId);
        await pause(50);
        await log('info', 'Tool execution completed', extra.requestId);
        return text('Tool with logging executed successfully');
      case 'test_tool_with_progress': {
        const token = request.params._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
          if (progress < 100) await pause(50);
        }
        return text('Tool with progress executed successfully');
      }
      case 'test_error_handling':
        return { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] };
      case 'test_reconnection':
        // The client must come back with Last-Event-ID to get the answer (SEP-1699).
        extra.closeSSEStream?.();
        await pause(100);
        return text('Reconnection test completed');
      case 'test_sampling': {
        if (!server.getClientCapabilities()?.sampling) return { isError: true, content: [{ type: 'text', text: 'the client does not support sampling' }] };
        const answer = await server.createMessage(
          { messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }], maxTokens: 100 },
          { relatedRequestId: extra.requestId },
        );
        const content = answer.content as { type: string; text?: string };
        return text(`LLM response: ${content.type === 'text' ? content.text : JSON.stringify(content)}`);
      }
      case 'test_elicitation': {
        if (!server.getClientCapabilities()?.elicitation) return { isError: true, content: [{ type: 'text', text: 'the client does not support elicitation' }] };
        const answer = await server.elicitInput(
          {
            message: String(args.message),
            requestedSchema: {
              type: 'object',
              properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
              required: ['username', 'email'],
            },
          },
          { relatedRequestId: extra.requestId },
        );
        return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
      }
      case 'test_elicitation_sep1034_defaults': {
        const answer = await server.elicitInput(
          {
            message: 'Confirm or change these values',
            requestedSchema: {
              type: 'object',
              properties: {
                name: { type: 'string', default: 'John Doe' },
                age: { type: 'integer', default: 30 },
                score: { type: 'number', default: 95.5 },
                status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
                verified: { type: 'boolean', default: true },
              },
            },
          },
          { relatedRequestId: extra.requestId },
        );
        return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
      }
      case 'test_elicitation_sep1330_enums': {
        const answer = await server.elicitInput(
          {
            message: 'Pick options',
            requestedSchema: {
              type: 'object',
              properties: {
                untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
                titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }] },
                legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
                untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
                titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] } },
              },
            } as never,
          },
          { relatedRequestId: extra.requestId },
        );
        return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
      }
      case 'json_schema_2020_12_tool':
        return text(`Received: ${JSON.stringify(args)}`);
      default:
        throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [
      { uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
      { uri: 'test://static-binary', name: 'static-binary', description: 'A static PNG', mimeType: 'image/png' },
      { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource to subscribe to', mimeType: 'text/plain' },
    ],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'Data for an id', mimeType: 'application/json' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    if (uri === 'test://static-text') return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
    if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG }] };
    if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content' }] };
    const id = /^test:\/\/template\/([^/]+)\/data$/.exec(uri)?.[1];
    if (id !== undefined) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
    throw new McpError(-32002, `Resource not found: ${uri}`, { uri });
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [
      { name: 'test_simple_prompt', description: 'A prompt without arguments' },
      { name: 'test_prompt_with_arguments', description: 'A prompt with two arguments', arguments: [{ name: 'arg1', description: 'First test argument', required: true }, { name: 'arg2', description: 'Second test argument', required: true }] },
      { name: 'test_prompt_with_embedded_resource', description: 'A prompt embedding a resource', arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }] },
      { name: 'test_prompt_with_image', description: 'A prompt with an image' },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case 'test_simple_prompt':
        return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] };
      case 'test_prompt_with_arguments':
        return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }] };
      case 'test_prompt_with_embedded_resource':
        return {
          messages: [
            { role: 'user', content: { type: 'resource', resource: { uri: String(args.resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
            { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
          ],
        };
      case 'test_prompt_with_image':
        return {
          messages: [
            { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
            { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
          ],
        };
      default:
        throw new McpError(ErrorCode.InvalidParams, `unknown prompt ${request.params.name}`);
    }
  });
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const words = ['paris', 'park', 'party', 'pasta', 'hello', 'world'];
    const values = words.filter((w) => w.startsWith(request.params.argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  return body === '' ? undefined : JSON.parse(body);
}

const sessions = new Map<string, StreamableHTTPServerTransport>();

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
  // A page a browser loaded elsewhere must not reach a loopback server through DNS rebinding.
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  if (host !== '127.0.0.1' && host !== 'localhost') return void res.writeHead(403, { 'Content-Type': 'text/plain' }).end(`Host ${host} refused`);
  const sessionId = req.headers['mcp-session-id'];
  const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  const body = req.method === 'POST' ? await readBody(req) : undefined;
  if (existing) return existing.handleRequest(req, res, body);
  if (req.method === 'POST' && isInitializeRequest(body)) {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new InMemoryEventStore(),
      retryInterval: 500,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await newServer().connect(transport);
    return transport.handleRequest(req, res, body);
  }
  res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no valid session' }, id: null }));
}

const port = Number(process.argv[2] ?? 0);
const http = createServer((req, res) => {
  handle(req, res).catch((error: Error) => {
    if (!res.headersSent) res.writeHead(500).end(error.message);
  });
});
http.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
