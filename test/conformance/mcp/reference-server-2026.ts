/**
 * Our 2026 reference MCP server for the official conformance suite's server checks at
 * `--spec-version 2026-07-28`: a server toolcell did not write the protocol of — the official
 * TypeScript SDK v2 (`@modelcontextprotocol/server`), its low-level `Server` behind
 * `createMcpHandler` (stateless, both eras on one endpoint) — answering what each 2026 scenario
 * asks for: the shared tools, resources, prompts and completions (reference-fixtures.ts), its own
 * `input_required` tools with the keys and `requestState` the scenarios expect (state sealed with
 * the SDK's HMAC codec, so a tampered state is refused), a prompt that asks for input, a tool
 * that needs a client capability (-32021), and a tool whose arguments ride `Mcp-Param-*` headers
 * (`x-mcp-header`). run-gateway-2026.ts runs the suite against it alone, then through
 * `toolcell serve --http` in front of it.
 *
 * Usage: node --import tsx reference-server-2026.ts PORT   (prints `listening <url>` once bound)
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  Server,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { NO_ARGS, PROMPTS, RESOURCES, RESOURCE_TEMPLATES, TOOLS, completionValues, getPrompt, pause, plainToolResult, readResource, text } from './reference-fixtures.ts';

/** The state of each round, sealed by the server: the client only echoes it. */
interface Round {
  tool: string;
  round: number;
}
const codec = createRequestStateCodec<Round>({ key: randomBytes(32) });

const elicit = (message: string, property: string, type = 'string') => ({
  method: 'elicitation/create',
  params: { message, requestedSchema: { type: 'object', properties: { [property]: { type } }, required: [property] } },
});
const sample = (prompt: string, maxTokens: number) => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens },
});
const listRoots = { method: 'roots/list', params: {} };

/** The 2025 set (less what needs 2025 server requests: a 2026 server asks by `input_required`), and the 2026 tools. */
const TOOLS_2026 = [
  ...TOOLS.filter((t) => !['test_sampling', 'test_elicitation', 'test_elicitation_sep1034_defaults', 'test_elicitation_sep1330_enums', 'test_reconnection'].includes(t.name)),
  { name: 'test_missing_capability', description: 'Needs the client to offer sampling', inputSchema: NO_ARGS },
  {
    name: 'test_custom_headers',
    description: 'Its region and priority ride Mcp-Param headers',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, priority: { type: 'integer', 'x-mcp-header': 'Priority' }, query: { type: 'string' } },
      required: ['region', 'query'],
    },
  },
  { name: 'test_input_required_result_elicitation', description: 'Asks for a user name (input_required)', inputSchema: NO_ARGS },
  { name: 'test_input_required_result_sampling', description: 'Asks the client to sample (input_required)', inputSchema: NO_ARGS },
  { name: 'test_input_required_result_list_roots', description: "Asks for the client's roots (input_required)", inputSchema: NO_ARGS },
  { name: 'test_input_required_result_request_state', description: 'Asks for a confirmation and checks its own requestState', inputSchema: NO_ARGS },
  { name: 'test_input_required_result_multiple_inputs', description: 'Asks for three inputs at once', inputSchema: NO_ARGS },
  { name: 'test_input_required_result_multi_round', description: 'Asks twice, one round after the other', inputSchema: NO_ARGS },
  { name: 'test_input_required_result_tampered_state', description: 'Refuses a requestState it did not seal', inputSchema: NO_ARGS },
  { name: 'test_input_required_result_capabilities', description: 'Asks only for what the client declared', inputSchema: NO_ARGS },
];

const PROMPTS_2026 = [...PROMPTS, { name: 'test_input_required_result_prompt', description: 'Asks what context to use (input_required)' }];

/** Whether every key in `keys` has an answer among the request's input responses. */
function answered(ctx: ServerContext, ...keys: string[]): boolean {
  const responses = ctx.mcpReq.inputResponses ?? {};
  return keys.every((k) => typeof responses[k] === 'object' && responses[k] !== null);
}

async function callTool(name: string, args: Record<string, unknown>, ctx: ServerContext): Promise<unknown> {
  const plain = plainToolResult(name, args);
  if (plain) return plain;
  const state = ctx.mcpReq.requestState<Round>();
  // The request's own client capabilities (the era has no handshake to remember them from).
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? {}) as Record<string, unknown>;
  switch (name) {
    case 'test_tool_with_logging':
      for (const step of ['started', 'processing data', 'completed']) {
        await ctx.mcpReq.log('info', `Tool execution ${step}`, 'reference-2026');
        await pause(20);
      }
      return text('Tool with logging executed successfully');
    case 'test_tool_with_progress': {
      const token = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
        if (progress < 100) await pause(50);
      }
      return text('Tool with progress executed successfully');
    }
    case 'test_missing_capability':
      if (!capabilities.sampling) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } }, 'this tool needs the client to offer sampling');
      return text('the client offers sampling');
    case 'test_custom_headers':
      // What reached it in the header too: a gateway in front must send it on.
      return text(`region=${String(args.region)} priority=${String(args.priority)} query=${String(args.query)} Mcp-Param-Region=${ctx.http?.req?.headers.get('mcp-param-region') ?? '(none)'}`);
    case 'test_input_required_result_elicitation':
      if (!answered(ctx, 'user_name')) return inputRequired({ inputRequests: { user_name: elicit('What is your name?', 'name') } as never });
      return text(`Hello, ${JSON.stringify(ctx.mcpReq.inputResponses!.user_name)}`);
    case 'test_input_required_result_sampling':
      if (!answered(ctx, 'capital_question')) return inputRequired({ inputRequests: { capital_question: sample('What is the capital of France?', 100) } as never });
      return text(`The model said: ${JSON.stringify(ctx.mcpReq.inputResponses!.capital_question)}`);
    case 'test_input_required_result_list_roots':
      if (!answered(ctx, 'client_roots')) return inputRequired({ inputRequests: { client_roots: listRoots } as never });
      return text(`Roots: ${JSON.stringify(ctx.mcpReq.inputResponses!.client_roots)}`);
    case 'test_input_required_result_request_state':
    case 'test_input_required_result_tampered_state':
      if (state?.tool === name && answered(ctx, 'confirm')) return text(`state-ok: ${JSON.stringify(ctx.mcpReq.inputResponses!.confirm)}`);
      return inputRequired({ inputRequests: { confirm: elicit('Please confirm', 'ok', 'boolean') } as never, requestState: await codec.mint({ tool: name, round: 1 }) });
    case 'test_input_required_result_multiple_inputs':
      if (state?.tool === name && answered(ctx, 'user_name', 'greeting', 'client_roots')) return text(`all three answered: ${JSON.stringify(ctx.mcpReq.inputResponses)}`);
      return inputRequired({
        inputRequests: { user_name: elicit('What is your name?', 'name'), greeting: sample('Generate a greeting', 50), client_roots: listRoots } as never,
        requestState: await codec.mint({ tool: name, round: 1 }),
      });
    case 'test_input_required_result_multi_round':
      if (state?.tool === name && state.round === 1 && answered(ctx, 'step1'))
        return inputRequired({ inputRequests: { step2: elicit('Step 2: What is your favorite color?', 'color') } as never, requestState: await codec.mint({ tool: name, round: 2 }) });
      if (state?.tool === name && state.round === 2 && answered(ctx, 'step2')) return text(`both steps answered: ${JSON.stringify(ctx.mcpReq.inputResponses!.step2)}`);
      return inputRequired({ inputRequests: { step1: elicit('Step 1: What is your name?', 'name') } as never, requestState: await codec.mint({ tool: name, round: 1 }) });
    case 'test_input_required_result_capabilities': {
      const asked: Record<string, unknown> = {};
      if (capabilities.elicitation) asked.user_name = elicit('What is your name?', 'name');
      if (capabilities.sampling) asked.greeting = sample('Generate a greeting', 50);
      if (capabilities.roots) asked.client_roots = listRoots;
      if (Object.keys(asked).length === 0 || answered(ctx, ...Object.keys(asked))) return text('nothing more to ask');
      return inputRequired({ inputRequests: asked as never });
    }
    default:
      throw new ProtocolError(-32602, `unknown tool ${name}`);
  }
}

function newServer(): Server {
  const server = new Server(
    { name: 'toolcell-conformance-reference-2026', version: '1.0.0' },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {} },
      requestState: { verify: codec.verify },
    },
  );
  server.setRequestHandler('tools/list', async () => ({ tools: TOOLS_2026 as never }));
  server.setRequestHandler('tools/call', async (request, ctx) => (await callTool(request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>, ctx)) as never);
  server.setRequestHandler('resources/list', async () => ({ resources: RESOURCES }));
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler('resources/read', async (request) => {
    const found = readResource(request.params.uri);
    if (!found) throw new ProtocolError(-32002, `Resource not found: ${request.params.uri}`, { uri: request.params.uri });
    return found as never;
  });
  server.setRequestHandler('prompts/list', async () => ({ prompts: PROMPTS_2026 }));
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    if (request.params.name === 'test_input_required_result_prompt') {
      if (!answered(ctx, 'user_context')) return inputRequired({ inputRequests: { user_context: elicit('What context should the prompt use?', 'context') } as never }) as never;
      return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${JSON.stringify(ctx.mcpReq.inputResponses!.user_context)}` } }] };
    }
    const found = getPrompt(request.params.name, request.params.arguments ?? {});
    if (!found) throw new ProtocolError(-32602, `unknown prompt ${request.params.name}`);
    return found as never;
  });
  server.setRequestHandler('completion/complete', async (request) => ({ completion: completionValues(request.params.argument.value) }));
  server.setRequestHandler('logging/setLevel', async () => ({}));
  return server;
}

const handler = createMcpHandler(() => newServer(), { onerror: () => undefined });

/** node:http in front of the SDK's fetch-shaped handler: the request in, the response (streamed) out. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
  // A page a browser loaded elsewhere must not reach a loopback server through DNS rebinding.
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  if (host !== '127.0.0.1' && host !== 'localhost') return void res.writeHead(403, { 'Content-Type': 'text/plain' }).end(`Host ${host} refused`);
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const body = chunks.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
  const response = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body, signal: abort.signal }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}

const port = Number(process.argv[2] ?? 0);
const http = createServer((req, res) => {
  handle(req, res).catch((error: Error) => {
    if (!res.headersSent) res.writeHead(500).end(error.message);
    else res.end();
  });
});
http.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
