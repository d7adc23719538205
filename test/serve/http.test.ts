/**
 * `serve --http` in process, on loopback, with the SDK's Streamable HTTP client: each session
 * is its own conversation (two run code_execution at once), a session that disconnects or ends
 * mid-call has that call aborted while the other keeps being served, a client's cancellation
 * aborts its call, and a configured token is required on every request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import pino from 'pino';
import { waitUntil } from '../helpers/peers.ts';
import { ToolHost } from '../../src/host/tool-host.ts';
import { serveHttp } from '../../src/serve/http.ts';
import { connectClient, serveFixtureHost } from './fixture-host.ts';

const terminal = (phase: string) => phase === 'completed' || phase === 'failed' || phase === 'aborted';

test('list and call over Streamable HTTP: direct calls and code_execution', async () => {
  const served = await serveFixtureHost();
  const { client } = await connectClient(served.serving.url);
  try {
    assert.match(served.serving.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['code_execution', 'gate', 'progressive', 'rendezvous', 'result_page']);
    assert.deepEqual((tools.find((t) => t.name === 'gate')?._meta as Record<string, unknown>)['mcpl/class'], ['shell']);
    const direct = await client.callTool({ name: 'progressive', arguments: { steps: 1 } });
    assert.deepEqual(direct.content, [{ type: 'text', text: 'nobody asked' }]);
    const script = await client.callTool({ name: 'code_execution', arguments: { code: 'return (await tools.progressive({ steps: 2 })) + "!"' } });
    assert.equal((script.structuredContent as { value?: unknown })?.value, 'nobody asked!', JSON.stringify(script));
  } finally {
    await client.close();
    await served.close();
  }
});

test('two sessions are two conversations, each running code_execution at the same time', async () => {
  const served = await serveFixtureHost({ rendezvousOf: 2 });
  const a = await connectClient(served.serving.url);
  const b = await connectClient(served.serving.url);
  try {
    // Each script waits in `rendezvous` until the other one is there too: refused or serialized
    // executions could never both return.
    const code = 'return await tools.rendezvous({})';
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: 'code_execution', arguments: { code } }),
      b.client.callTool({ name: 'code_execution', arguments: { code } }),
    ]);
    const va = (ra.structuredContent as { value?: string })?.value;
    const vb = (rb.structuredContent as { value?: string })?.value;
    // Opaque ids (test/security/serve-sessions.test.ts): prefixed, never the session id.
    assert.match(va ?? '', /^http-/, JSON.stringify(ra));
    assert.match(vb ?? '', /^http-/, JSON.stringify(rb));
    assert.notEqual(va, vb);
  } finally {
    await Promise.all([a.client.close(), b.client.close()]);
    await served.close();
  }
});

test('a session that disconnects mid-call has its call aborted; the other session is still served', async () => {
  const served = await serveFixtureHost();
  const leaving = await connectClient(served.serving.url);
  const staying = await connectClient(served.serving.url);
  try {
    const pending = leaving.client.callTool({ name: 'gate', arguments: {} }).catch((error: unknown) => error);
    const started = await waitUntil(() => served.events.find((e) => e.tool === 'gate' && e.phase === 'started'), 'the gate call to start');
    await leaving.transport.close(); // drops the HTTP connection the answer was due on, without DELETE
    const end = await waitUntil(() => served.events.find((e) => e.toolCallId === started.toolCallId && terminal(e.phase)), 'the gate call to end');
    assert.equal(end.phase, 'aborted');
    assert.match(end.reason ?? '', /client disconnected/);
    await pending;
    const still = await staying.client.callTool({ name: 'code_execution', arguments: { code: 'return 6 * 7' } });
    assert.equal((still.structuredContent as { value?: unknown })?.value, 42, JSON.stringify(still));
  } finally {
    await staying.client.close();
    await served.close();
  }
});

test('ending a session (DELETE) aborts its calls and ends its conversation', async () => {
  const served = await serveFixtureHost();
  const { client, transport } = await connectClient(served.serving.url);
  let pending: Promise<unknown> | undefined;
  try {
    pending = client.callTool({ name: 'code_execution', arguments: { code: 'await tools.gate({}); return 1' } }).catch((e: unknown) => e);
    const parent = await waitUntil(() => served.events.find((e) => e.tool === 'code_execution' && e.phase === 'started'), 'code_execution to start');
    await waitUntil(() => served.events.find((e) => e.tool === 'gate' && e.phase === 'started'), 'the script to call gate');
    await transport.terminateSession();
    const end = await waitUntil(() => served.events.find((e) => e.toolCallId === parent.toolCallId && terminal(e.phase)), 'code_execution to end');
    assert.equal(end.phase, 'aborted');
    assert.deepEqual(served.endedSessions.map((s) => s.conversationId), [parent.conversationId]);
    assert.equal(served.serving.sessionCount(), 0);
  } finally {
    await client.close(); // the SDK client leaves a request whose session ended waiting until closed
    await pending;
    await served.close();
  }
});

test("a client's cancellation aborts that call over HTTP", async () => {
  const served = await serveFixtureHost();
  const { client } = await connectClient(served.serving.url);
  try {
    const controller = new AbortController();
    const pending = client.callTool({ name: 'gate', arguments: {} }, undefined, { signal: controller.signal });
    const started = await waitUntil(() => served.events.find((e) => e.tool === 'gate' && e.phase === 'started'), 'the gate call to start');
    controller.abort('changed my mind');
    await assert.rejects(pending);
    const end = await waitUntil(() => served.events.find((e) => e.toolCallId === started.toolCallId && terminal(e.phase)), 'the gate call to end');
    assert.equal(end.phase, 'aborted');
    assert.match(end.reason ?? '', /cancelled/);
    assert.equal(served.serving.sessionCount(), 1, 'cancelling a call does not end the session');
  } finally {
    await client.close();
    await served.close();
  }
});

/** A raw request, so the status and headers can be read (and Host set). */
function raw(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
  });
}

test('with a token configured, every request needs it: 401 without it or with a wrong one', async () => {
  const served = await serveFixtureHost({ token: 's3cret-token' });
  try {
    const url = served.serving.url;
    assert.equal((await raw(url, {})).status, 401);
    const wrong = await raw(url, { Authorization: 'Bearer s3cret-tokem' });
    assert.equal(wrong.status, 401);
    assert.match(String(wrong.headers['www-authenticate']), /^Bearer/);
    assert.equal((await raw(url, { Authorization: 'Bearer s3cret-token-and-more' })).status, 401);
    assert.equal((await raw(url, { Authorization: 's3cret-token' })).status, 401);
    await assert.rejects(connectClient(url), /bearer token/);
    await assert.rejects(connectClient(url, 'nope'), /bearer token/);
    assert.equal(served.serving.sessionCount(), 0, 'no session was opened without the token');
    const { client } = await connectClient(url, 's3cret-token');
    try {
      const result = await client.callTool({ name: 'progressive', arguments: { steps: 1 } });
      assert.equal(result.isError, undefined);
    } finally {
      await client.close();
    }
  } finally {
    await served.close();
  }
});

test('a loopback server without a token answers only to its own Host (no DNS rebinding)', async () => {
  const served = await serveFixtureHost();
  try {
    const port = new URL(served.serving.url).port;
    assert.equal((await raw(served.serving.url, { Host: 'evil.example' })).status, 403);
    assert.equal((await raw(served.serving.url, { Host: `localhost:${port}` })).status, 200);
  } finally {
    await served.close();
  }
});

test('a session whose client vanished without DELETE is reaped once idle; a connected one stays', async () => {
  // The idle bound is the only time here: it must outlast the gap between a client's initialize
  // and its event stream opening, which a loaded 2-core machine stretched past 100 ms (the
  // staying session was reaped 1 run in 3 beside two busy loops). The waits are for events.
  const served = await serveFixtureHost({ idleSessionMs: 2_000 });
  const vanishing = await connectClient(served.serving.url);
  const staying = await connectClient(served.serving.url);
  try {
    await vanishing.transport.close(); // no DELETE: only the idle reaper can end this session
    await waitUntil(() => served.endedSessions.length === 1, 'the vanished session to be reaped');
    const gone = served.endedSessions[0]!.conversationId;
    // The staying client holds its event stream open, so it is not idle however long it waits.
    const result = await staying.client.callTool({ name: 'progressive', arguments: { steps: 1 } });
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.deepEqual(served.endedSessions.map((s) => s.conversationId), [gone]);
  } finally {
    await staying.client.close();
    await served.close();
  }
});

test('serving off loopback without a token is refused before listening', async () => {
  const host = new ToolHost();
  await assert.rejects(
    serveHttp(host, { host: '0.0.0.0', port: 0, conversationPrefix: 'x', logger: pino({ level: 'silent' }) }),
    /refusing to serve on 0\.0\.0\.0, which is not a loopback address, without a bearer token/,
  );
  await host.close();
});
