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
import { PROMPTS, RESOURCES, RESOURCE_TEMPLATES, TOOLS, completionValues, getPrompt, pause, plainToolResult, readResource, text as fixtureText } from './reference-fixtures.ts';

const text = (t: string): CallToolResult => fixtureText(t) as CallToolResult;

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
      default: {
        const plain = plainToolResult(request.params.name, args);
        if (plain) return plain as CallToolResult;
        throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
      }
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const found = readResource(request.params.uri);
    if (!found) throw new McpError(-32002, `Resource not found: ${request.params.uri}`, { uri: request.params.uri });
    return found as never;
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const found = getPrompt(request.params.name, request.params.arguments ?? {});
    if (!found) throw new McpError(ErrorCode.InvalidParams, `unknown prompt ${request.params.name}`);
    return found as never;
  });
  server.setRequestHandler(CompleteRequestSchema, async (request) => ({ completion: completionValues(request.params.argument.value) }));
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
