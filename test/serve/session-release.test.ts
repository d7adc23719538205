/**
 * A serve session that ends releases everything it held: the "for this conversation" grants
 * and the inferences of every conversation it used (its own and those it named), its gateway
 * hub membership and its place in serve's tables. Counted on the host before and after the
 * session ends by HTTP DELETE, by its client vanishing (the idle reaper), and by stdin ending.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import pino from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { waitUntil } from '../helpers/peers.ts';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { ElicitationGate } from '../../src/approvals/elicitation-gate.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { ServeClients } from '../../src/serve/approval-clients.ts';
import { GatewayHub } from '../../src/serve/gateway/hub.ts';
import { serveHttp } from '../../src/serve/http.ts';
import { serveStdio } from '../../src/serve/stdio.ts';

/** A host whose `send` (class `comms`) needs the client's approval, with code_execution and a gateway hub. */
function approvingHost() {
  const logger = pino({ level: process.env.TOOLCELL_LOG_LEVEL ?? 'silent' });
  const clients = new ServeClients(60_000);
  const host = new ToolHost({ logger, approvalGate: new ElicitationGate({ classes: ['comms'] }, (id) => clients.clientFor(id)) });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  host.registerTool({ name: 'send', description: 'Sends.', inputSchema: { type: 'object' }, classes: ['comms'], handler: async () => textResult('sent') });
  const codeExecution = registerCodeExecution(host, { languages: ['javascript'] });
  const hub = new GatewayHub(host, logger, { prefixed: () => true, multiClient: true });
  return {
    logger,
    clients,
    host,
    events,
    hub,
    close: async () => {
      hub.close();
      await codeExecution.close();
      await host.close();
    },
  };
}

/** A client that accepts every approval "for this conversation". */
function approvingClient(): Client {
  const client = new Client({ name: 'release-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { forConversation: true } }));
  return client;
}

/** Runs a script calling `send` in the default conversation and in one named `work`; returns the conversations `send` ran in. */
async function useTwoConversations(client: Client, events: HostLifecycleEvent[]): Promise<string[]> {
  const script = { name: 'code_execution', arguments: { code: 'await tools.send({}); return 1' } };
  for (const extra of [{}, { _meta: { 'agent-framework/conversationId': 'work' } }]) {
    const result = await client.callTool({ ...script, ...extra });
    assert.equal((result.structuredContent as { value?: unknown })?.value, 1, JSON.stringify(result));
  }
  const conversations = [...new Set(events.filter((e) => e.tool === 'send' && e.phase === 'completed').map((e) => e.conversationId))];
  assert.equal(conversations.length, 2, JSON.stringify(conversations));
  return conversations;
}

type Served = ReturnType<typeof approvingHost>;

/** What the host and hub hold for these conversations now. */
function held(served: Served, conversations: string[]) {
  return {
    grants: conversations.reduce((n, c) => n + served.host.approvals.list(c).length, 0),
    ...served.host.remembered,
    hubMembers: served.hub.memberCount,
  };
}

for (const how of ['DELETE', 'the client vanishing (idle reaper)'] as const) {
  test(`an HTTP session ended by ${how} releases its conversations' grants and inferences and its hub membership`, async () => {
    const served = approvingHost();
    const ended: string[] = [];
    const serving = await serveHttp(served.host, {
      host: '127.0.0.1',
      port: 0,
      conversationPrefix: 'rel',
      logger: served.logger,
      clients: served.clients,
      gateway: served.hub,
      ...(how === 'DELETE' ? {} : { idleSessionMs: 2_000 }),
      onSessionEnd: (session) => void ended.push(session.conversationId),
    });
    const client = approvingClient();
    const transport = new StreamableHTTPClientTransport(new URL(serving.url));
    try {
      await client.connect(transport);
      const conversations = await useTwoConversations(client, served.events);
      assert.deepEqual(held(served, conversations), { grants: 2, inferences: 2, conversations: 2, hubMembers: 1 });
      if (how === 'DELETE') await transport.terminateSession();
      else await transport.close(); // no DELETE: the connection goes, and only the reaper ends it
      await waitUntil(() => ended.length === 1, 'the session to end');
      assert.equal(serving.sessionCount(), 0);
      assert.deepEqual(held(served, conversations), { grants: 0, inferences: 0, conversations: 0, hubMembers: 0 });
    } finally {
      await client.close();
      await serving.close();
      await served.close();
    }
  });
}

/** An MCP client transport over a pair of streams: what serve's stdout writes, and its stdin. */
class StreamsTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly fromServer: Readable,
    private readonly toServer: Writable,
  ) {}

  async start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) this.onmessage?.(message);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  /** Ends serve's stdin, as a client process exiting does. */
  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}

test("a stdio session whose stdin ends releases its conversations' grants and inferences and its hub membership", async () => {
  const served = approvingHost();
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const serving = serveStdio(served.host, { conversationId: 'desk', logger: served.logger, stop: new Promise(() => undefined), clients: served.clients, gateway: served.hub, stdin, stdout });
  const client = approvingClient();
  try {
    await client.connect(new StreamsTransport(stdout, stdin));
    const conversations = await useTwoConversations(client, served.events);
    assert.deepEqual(conversations.sort(), ['desk', 'work']);
    assert.deepEqual(held(served, conversations), { grants: 2, inferences: 2, conversations: 2, hubMembers: 1 });
    await client.close(); // stdin ends
    await serving;
    assert.deepEqual(held(served, conversations), { grants: 0, inferences: 0, conversations: 0, hubMembers: 0 });
  } finally {
    stdin.destroy();
    await served.close();
  }
});
