/**
 * Sessions of `serve --http` are capped, in total and per client (the bearer token, or the
 * peer's address without one), and a refused or ended session leaves nothing behind: not in
 * the session table, not in the gateway hub. Driven by raw requests from distinct loopback
 * addresses (127.0.0.2 is another client).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitUntil } from '../helpers/peers.ts';
import { connectClient, serveFixtureHost } from './fixture-host.ts';
import { INITIALIZE, postHead, rawConnect } from './raw-http.ts';

interface Answer {
  status: number | undefined;
  sessionId: string | undefined;
  text: string;
}

/** One raw `initialize` on its own connection, from `from`; resolves once the server closed it. */
async function initialize(url: string, options: { from?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const peer = await rawConnect(url, options.from);
  const headers: Record<string, string | number> = { 'Content-Length': INITIALIZE.length, Connection: 'close', ...options.headers };
  let head = postHead(url, headers);
  if (options.headers?.Accept !== undefined) head = head.replace('Accept: application/json, text/event-stream\r\n', '');
  peer.write(head + INITIALIZE);
  const end = await peer.response;
  peer.socket.destroy();
  const sessionId = /\r\nmcp-session-id: ([^\r]+)\r\n/i.exec(end.text)?.[1];
  // A session joins the gateway hub once the client says it is initialized, as SDK clients do.
  if (end.status === 200 && sessionId !== undefined) await initialized(url, sessionId, options.from, options.headers?.Authorization);
  return { status: end.status, sessionId, text: end.text };
}

/** The `notifications/initialized` a client sends after its `initialize` was answered. */
async function initialized(url: string, sessionId: string, from?: string, authorization?: string): Promise<void> {
  const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const peer = await rawConnect(url, from);
  const auth: Record<string, string> = authorization !== undefined ? { Authorization: authorization } : {};
  peer.write(postHead(url, { 'Content-Length': body.length, Connection: 'close', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18', ...auth }) + body);
  const end = await peer.response;
  peer.socket.destroy();
  assert.equal(end.status, 202, end.text);
}

async function remove(url: string, sessionId: string, headers: Record<string, string> = {}): Promise<number | undefined> {
  const { host, pathname } = new URL(url);
  const peer = await rawConnect(url);
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  peer.write(`DELETE ${pathname} HTTP/1.1\r\nHost: ${host}\r\nmcp-session-id: ${sessionId}\r\n${extra}Connection: close\r\n\r\n`);
  const end = await peer.response;
  peer.socket.destroy();
  return end.status;
}

test('sessions are capped per client address and in total; a refused one costs no session and no hub membership', async () => {
  const served = await serveFixtureHost({ hub: true, serve: { maxSessions: 3, maxSessionsPerClient: 2 } });
  const hub = served.hub!;
  try {
    const url = served.serving.url;
    const a1 = await initialize(url, { from: '127.0.0.1' });
    const a2 = await initialize(url, { from: '127.0.0.1' });
    assert.deepEqual([a1.status, a2.status], [200, 200], a1.text + a2.text);
    const a3 = await initialize(url, { from: '127.0.0.1' });
    assert.equal(a3.status, 429, a3.text);
    assert.match(a3.text, /2 sessions already open for this client/);
    const b1 = await initialize(url, { from: '127.0.0.2' });
    assert.equal(b1.status, 200, b1.text);
    const c1 = await initialize(url, { from: '127.0.0.3' });
    assert.equal(c1.status, 503, c1.text);
    assert.match(c1.text, /3 sessions already open/);
    assert.equal(served.serving.sessionCount(), 3);
    assert.equal(hub.memberCount, 3, 'a refused session joined the hub');
    // Ending one frees its place (and its client's).
    assert.equal(await remove(url, a1.sessionId!), 200);
    assert.equal(served.serving.sessionCount(), 2);
    assert.equal(hub.memberCount, 2, 'an ended session stayed in the hub');
    const c2 = await initialize(url, { from: '127.0.0.3' });
    assert.equal(c2.status, 200, c2.text);
    const a4 = await initialize(url, { from: '127.0.0.1' });
    assert.equal(a4.status, 503, a4.text);
  } finally {
    await served.close();
  }
});

test('with a token, the cap is per token, whatever address the peer comes from', async () => {
  const served = await serveFixtureHost({ token: 'tok-1', serve: { maxSessions: 10, maxSessionsPerClient: 2 } });
  try {
    const auth = { Authorization: 'Bearer tok-1' };
    const answers = [
      await initialize(served.serving.url, { from: '127.0.0.1', headers: auth }),
      await initialize(served.serving.url, { from: '127.0.0.2', headers: auth }),
      await initialize(served.serving.url, { from: '127.0.0.3', headers: auth }),
    ];
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 429], answers.map((a) => a.text).join('\n'));
    assert.equal(served.serving.sessionCount(), 2);
  } finally {
    await served.close();
  }
});

test('ended and refused sessions leave the gateway hub: 20 of each, and the hub holds none of them', async () => {
  const served = await serveFixtureHost({ hub: true, serve: { maxSessions: 100, maxSessionsPerClient: 100 } });
  try {
    const url = served.serving.url;
    for (let i = 0; i < 20; i++) {
      // Refused by the SDK transport after serve built the session: no `text/event-stream` in Accept.
      const refused = await initialize(url, { headers: { Accept: 'application/json' } });
      assert.equal(refused.status, 406, refused.text);
      const opened = await initialize(url);
      assert.equal(opened.status, 200, opened.text);
      assert.equal(await remove(url, opened.sessionId!), 200);
    }
    assert.equal(served.serving.sessionCount(), 0);
    assert.equal(served.hub!.memberCount, 0, `${served.hub!.memberCount} ended or refused sessions are still in the hub`);
  } finally {
    await served.close();
  }
});

test("a session's open requests are capped: past the cap a request is answered 429, and the session goes on", async () => {
  // Three places: the client's event stream (GET) and two calls. `rendezvous` returns once three
  // callers wait in it, so A's two calls hold their places until B's call arrives.
  const served = await serveFixtureHost({ rendezvousOf: 3, serve: { maxRequestsPerSession: 3 } });
  const a = await connectClient(served.serving.url);
  const b = await connectClient(served.serving.url);
  try {
    const held = [a.client.callTool({ name: 'rendezvous', arguments: {} }), a.client.callTool({ name: 'rendezvous', arguments: {} })];
    await waitUntil(() => served.waiting() === 2, "A's two calls to wait in rendezvous");
    await assert.rejects(a.client.callTool({ name: 'progressive', arguments: { steps: 1 } }), /requests of this session are open already/);
    // Another session has its own places: its call is served, and releases A's two.
    const third = await b.client.callTool({ name: 'rendezvous', arguments: {} });
    assert.equal(third.isError, undefined, JSON.stringify(third));
    for (const r of await Promise.all(held)) assert.equal(r.isError, undefined, JSON.stringify(r));
    const after = await a.client.callTool({ name: 'progressive', arguments: { steps: 1 } });
    assert.equal(after.isError, undefined, JSON.stringify(after));
  } finally {
    await Promise.all([a.client.close(), b.client.close()]);
    await served.close();
  }
});

test('the conversations a session may use are capped: past the cap, naming a new one is refused with a reason; known ones still serve', async () => {
  const served = await serveFixtureHost({ rendezvousOf: 1, serve: { maxConversationsPerSession: 3 } });
  const { client } = await connectClient(served.serving.url);
  const call = (name?: string) => client.callTool({ name: 'rendezvous', arguments: {}, ...(name ? { _meta: { 'agent-framework/conversationId': name } } : {}) });
  try {
    for (const name of [undefined, 'a', 'b']) assert.equal((await call(name)).isError, undefined);
    await assert.rejects(call('c'), /uses 3 conversations already, its own included/);
    for (const name of [undefined, 'a', 'b']) assert.equal((await call(name)).isError, undefined);
    assert.equal(served.host.remembered.conversations, 3);
  } finally {
    await client.close();
    await served.close();
  }
});
