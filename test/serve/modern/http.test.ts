/**
 * serve answers the 2026-07-28 era on the same `/mcp` endpoint as 2025, with raw HTTP requests
 * as a client of that era sends them: no initialize, `_meta` on every request, routing headers,
 * `server/discover`, cache hints, typed errors with their statuses — and a 2025 SDK client on the
 * same server at the same time keeps working.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectClient, serveFixtureHost } from '../fixture-host.ts';

export const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1.0.0' },
};

let ids = 0;
/** POSTs one request of the era; returns the HTTP status and the JSON-RPC answer (the last SSE message when streamed) and any notifications. */
export async function post(url: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string | undefined> = {}): Promise<{ status: number; body: any; notifications: any[] }> {
  const id = ++ids;
  const name = (params.name ?? params.uri) as string | undefined;
  const sent: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28',
    'Mcp-Method': method,
    ...(name !== undefined ? { 'Mcp-Name': name } : {}),
  };
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete sent[k];
    else sent[k] = v;
  }
  const response = await fetch(url, { method: 'POST', headers: sent, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta: META, ...params } }) });
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const messages = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
    return { status: response.status, body: messages.find((m) => m.id === id), notifications: messages.filter((m) => m.id === undefined) };
  }
  return { status: response.status, body: JSON.parse(text), notifications: [] };
}

test('2026 over HTTP: discover, tools/list with cache hints, tools/call and code_execution, no session', async () => {
  const served = await serveFixtureHost();
  try {
    const discover = await post(served.serving.url, 'server/discover');
    assert.equal(discover.status, 200);
    assert.equal(discover.body.result.resultType, 'complete');
    assert.ok(discover.body.result.supportedVersions.includes('2026-07-28'));
    assert.ok(discover.body.result.supportedVersions.includes('2025-11-25'));
    // code_execution runs as a task for clients that declare the tasks extension (tasks.test.ts).
    assert.deepEqual(discover.body.result.capabilities, { tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } });
    assert.equal(discover.body.result._meta['io.modelcontextprotocol/serverInfo'].name, 'toolcell');

    const list = await post(served.serving.url, 'tools/list');
    assert.equal(list.body.result.resultType, 'complete');
    assert.deepEqual(list.body.result.tools.map((t: any) => t.name).sort(), ['code_execution', 'gate', 'progressive', 'rendezvous', 'result_page']);
    assert.equal(list.body.result.cacheScope, 'private');
    assert.ok(Number.isInteger(list.body.result.ttlMs) && list.body.result.ttlMs >= 0);

    const direct = await post(served.serving.url, 'tools/call', { name: 'progressive', arguments: { steps: 1 } });
    assert.equal(direct.body.result.resultType, 'complete');
    assert.deepEqual(direct.body.result.content, [{ type: 'text', text: 'nobody asked' }]);
    assert.equal(direct.body.result.ttlMs, undefined, 'a tool result is not cacheable');

    const script = await post(served.serving.url, 'tools/call', { name: 'code_execution', arguments: { code: 'return (await tools.progressive({ steps: 2 })) + "!"' } });
    assert.equal(script.body.result.structuredContent.value, 'nobody asked!', JSON.stringify(script.body));
    assert.equal(served.serving.sessionCount(), 0, 'no session is created for the era');
    // Each request but discover ran in a conversation of its own, ended with it.
    assert.equal(served.endedSessions.length, 3);
    assert.equal(new Set(served.endedSessions.map((s) => s.conversationId)).size, 3);
  } finally {
    await served.close();
  }
});

test('2026 over HTTP: progress arrives on the request’s SSE stream before the answer', async () => {
  const served = await serveFixtureHost();
  try {
    const call = await post(served.serving.url, 'tools/call', { name: 'progressive', arguments: { steps: 3 }, _meta: { ...META, progressToken: 'p1' } });
    assert.deepEqual(call.body.result.content, [{ type: 'text', text: 'reported' }]);
    assert.deepEqual(call.notifications.map((n) => [n.method, n.params.progressToken, n.params.progress]), [
      ['notifications/progress', 'p1', 1],
      ['notifications/progress', 'p1', 2],
      ['notifications/progress', 'p1', 3],
    ]);
  } finally {
    await served.close();
  }
});

test('2026 over HTTP: malformed requests get the era’s typed errors with their statuses and the request id', async () => {
  const served = await serveFixtureHost();
  const url = served.serving.url;
  try {
    const noMeta = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'server/discover' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'server/discover', params: {} }),
    });
    assert.equal(noMeta.status, 400);
    assert.deepEqual([((await noMeta.json()) as any).error.code], [-32602]);

    const wrongVersion = await post(url, 'server/discover', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999' } }, { 'MCP-Protocol-Version': 'v999' });
    assert.equal(wrongVersion.status, 400);
    assert.equal(wrongVersion.body.error.code, -32022);
    assert.deepEqual(wrongVersion.body.error.data, { requested: 'v999', supported: ['2026-07-28'] });

    const mismatch = await post(url, 'server/discover', { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999' } });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.error.code, -32020);

    const wrongName = await post(url, 'tools/call', { name: 'progressive', arguments: {} }, { 'Mcp-Name': 'gate' });
    assert.equal(wrongName.status, 400);
    assert.equal(wrongName.body.error.code, -32020);
    assert.equal(wrongName.body.id, ids);

    // A proxy routing on the headers must see what runs: the name is required when the body has one.
    const noName = await post(url, 'tools/call', { name: 'progressive', arguments: {} }, { 'Mcp-Name': undefined });
    assert.equal(noName.status, 400);
    assert.equal(noName.body.error.code, -32020);
    const noMethod = await post(url, 'tools/list', {}, { 'Mcp-Method': undefined });
    assert.equal(noMethod.status, 400);
    assert.equal(noMethod.body.error.code, -32020);

    const removed = await post(url, 'ping');
    assert.equal(removed.status, 404);
    assert.equal(removed.body.error.code, -32601);
    const unknown = await post(url, 'no/such-method');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, -32601);
    assert.equal(served.events.length, 0, 'nothing ran');
  } finally {
    await served.close();
  }
});

test('a 2025 client on the same endpoint keeps its handshake and session while 2026 requests are answered', async () => {
  const served = await serveFixtureHost();
  const { client } = await connectClient(served.serving.url);
  try {
    const modern = await post(served.serving.url, 'tools/call', { name: 'progressive', arguments: { steps: 1 } });
    assert.deepEqual(modern.body.result.content, [{ type: 'text', text: 'nobody asked' }]);
    const old = await client.callTool({ name: 'progressive', arguments: { steps: 1 } });
    assert.deepEqual(old.content, [{ type: 'text', text: 'nobody asked' }]);
    assert.equal((old as any).resultType, undefined, 'the 2025 answer is unchanged');
    assert.equal(client.getServerVersion()?.name, 'toolcell');
    assert.equal(served.serving.sessionCount(), 1);
  } finally {
    await client.close();
    await served.close();
  }
});
