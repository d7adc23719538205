/**
 * A client session joins the gateway's hub when it initializes and leaves when its
 * conversation ends (what serve does as a session ends), releasing what it held; a session
 * refused before initializing never joins. In process: the SDK's Server and Client over its
 * in-memory transport, a ToolHost without servers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolHost } from '../../../src/host/tool-host.ts';
import { GatewayHub } from '../../../src/serve/gateway/hub.ts';
import { ServeSession } from '../../../src/serve/session.ts';
import { createToolServer } from '../../../src/serve/tool-server.ts';

test('a session joins the hub once initialized and leaves when its conversation ends; one never initialized never joins', async () => {
  const logger = pino({ level: 'silent' });
  const host = new ToolHost({ logger });
  const hub = new GatewayHub(host, logger, { prefixed: () => true, multiClient: true });
  try {
    const sessions = Array.from({ length: 50 }, (_, i) => new ServeSession(`serve-${i}`));
    const clients: Client[] = [];
    for (const session of sessions) {
      const server = createToolServer(host, session, logger, undefined, undefined, hub);
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      const client = new Client({ name: session.conversationId, version: '1.0.0' });
      await client.connect(b);
      clients.push(client);
    }
    // The initialized notification is handled a turn later: wait for it by a round trip.
    await Promise.all(clients.map((c) => c.ping()));
    assert.equal(hub.memberCount, 50);

    // Refused before initialize (a session whose initialize never came): never a member.
    createToolServer(host, new ServeSession('never-initialized'), logger, undefined, undefined, hub);
    assert.equal(hub.memberCount, 50);

    // A named conversation inside a session ending is not the session ending.
    await host.endConversation('serve-0/named', 'the named conversation ended');
    assert.equal(hub.memberCount, 50);
    for (const session of sessions) await host.endConversation(session.conversationId, 'the MCP session ended');
    assert.equal(hub.memberCount, 0);
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    hub.close();
    await host.close();
  }
});
