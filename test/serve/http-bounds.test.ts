/**
 * What an unauthenticated peer can make `serve --http` hold, attacked with raw sockets: a body
 * past the size limit is answered 413 and the connection closed as it crosses the limit (a
 * declared Content-Length over it before any body is read); a body that stalls or trickles is
 * answered 408 once its time is up, and so are headers that never finish.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitUntil } from '../helpers/peers.ts';
import { connectClient, serveFixtureHost } from './fixture-host.ts';
import { INITIALIZE, postHead, rawConnect } from './raw-http.ts';

/** Fails after `ms` (a bound on how long a test waits for the server's cut, not a measure of speed). */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

const LIMIT = 64 * 1024;

test('a Content-Length over the limit is answered 413 and the connection closed, before any body is read', async () => {
  const served = await serveFixtureHost({ serve: { maxBodyBytes: LIMIT } });
  try {
    const peer = await rawConnect(served.serving.url);
    peer.write(postHead(served.serving.url, { 'Content-Length': 100 * 1024 * 1024 }));
    // Not one byte of body is sent: a server that waits for it never answers.
    const end = await within(20_000, 'the 413 for a declared 100 MiB body', peer.closed);
    assert.equal(end.status, 413, end.text);
    assert.match(end.text, /larger than 65536 bytes/);
    assert.match(end.text, /\r\nConnection: close\r\n/i);
  } finally {
    await served.close();
  }
});

test('a chunked body is answered 413 and its connection closed once it passes the limit, without waiting for its end', async () => {
  const served = await serveFixtureHost({ serve: { maxBodyBytes: LIMIT } });
  try {
    const peer = await rawConnect(served.serving.url);
    peer.write(postHead(served.serving.url, { 'Transfer-Encoding': 'chunked' }));
    // Twice the limit, in 4 KiB chunks, and then the peer stalls: no terminating chunk.
    const chunk = Buffer.alloc(4096, 0x20);
    for (let sent = 0; sent < 2 * LIMIT; sent += chunk.length) peer.write(`${chunk.length.toString(16)}\r\n${chunk.toString('latin1')}\r\n`);
    const end = await within(20_000, 'the 413 for a chunked body past the limit', peer.closed);
    assert.equal(end.status, 413, `${end.error ?? ''} ${end.text}`);
    assert.match(end.text, /larger than 65536 bytes/);
    assert.equal(served.serving.sessionCount(), 0);
  } finally {
    await served.close();
  }
});

test('a body just under the limit is read and served', async () => {
  const served = await serveFixtureHost({ serve: { maxBodyBytes: LIMIT } });
  try {
    const body = INITIALIZE + ' '.repeat(LIMIT - INITIALIZE.length);
    const peer = await rawConnect(served.serving.url);
    peer.write(postHead(served.serving.url, { 'Content-Length': body.length, Connection: 'close' }) + body);
    const end = await within(20_000, 'the answer to initialize', peer.closed);
    assert.equal(end.status, 200, end.text);
    assert.equal(served.serving.sessionCount(), 1);
  } finally {
    await served.close();
  }
});

const BODY_TIMEOUT = 1_000;

test('a body that stalls is answered 408 and its connection closed once the body timeout passes', async () => {
  const served = await serveFixtureHost({ serve: { bodyTimeoutMs: BODY_TIMEOUT } });
  try {
    const peer = await rawConnect(served.serving.url);
    const start = Date.now();
    peer.write(postHead(served.serving.url, { 'Content-Length': 1000 }) + INITIALIZE.slice(0, 10));
    const end = await within(20_000, 'the 408 for a stalled body', peer.closed);
    assert.equal(end.status, 408, `${end.error ?? ''} ${end.text}`);
    assert.match(end.text, /request body not received within 1000 ms/);
    assert.ok(end.at - start >= BODY_TIMEOUT - 50, `cut after ${end.at - start} ms, before the stated ${BODY_TIMEOUT} ms`);
  } finally {
    await served.close();
  }
});

test('a body that trickles (a byte every 50 ms) is cut at the same deadline: the bound is on the whole body', async () => {
  const served = await serveFixtureHost({ serve: { bodyTimeoutMs: BODY_TIMEOUT } });
  try {
    const peer = await rawConnect(served.serving.url);
    const body = INITIALIZE + ' '.repeat(2000);
    peer.write(postHead(served.serving.url, { 'Content-Length': body.length }));
    let at = 0;
    const trickle = setInterval(() => peer.write(body[at++] ?? ' '), 50);
    try {
      const end = await within(20_000, 'the 408 for a trickled body', peer.closed);
      assert.equal(end.status, 408, `${end.error ?? ''} ${end.text}`);
      assert.ok(at < body.length, 'the body was cut before it was complete');
    } finally {
      clearInterval(trickle);
    }
  } finally {
    await served.close();
  }
});

test('headers that never finish are answered 408 and the connection closed once the headers timeout passes', async () => {
  const served = await serveFixtureHost({ serve: { headersTimeoutMs: BODY_TIMEOUT } });
  try {
    const peer = await rawConnect(served.serving.url);
    peer.write(postHead(served.serving.url, { 'X-Slow': 'a' }, true));
    const end = await within(20_000, 'the 408 for stalled headers', peer.closed);
    assert.equal(end.status, 408, `${end.error ?? ''} ${end.text}`);
    // Meanwhile and after, a well-behaved client is served.
    const { client } = await connectClient(served.serving.url);
    const result = await client.callTool({ name: 'progressive', arguments: { steps: 1 } });
    assert.equal(result.isError, undefined);
    await client.close();
  } finally {
    await served.close();
  }
});

test('bodies held at once share one byte budget: past it a peer is answered 503, and stalled bodies cost no more than it', async () => {
  const budget = 4 * 60 * 1024;
  const served = await serveFixtureHost({ serve: { maxBodyBytes: LIMIT, maxBufferedBodyBytes: budget, bodyTimeoutMs: 60_000 } });
  const peers: Awaited<ReturnType<typeof rawConnect>>[] = [];
  try {
    // Four peers each announce 60 KiB (under the 64 KiB limit), send half of it and stall.
    for (let i = 0; i < 4; i++) {
      const peer = await rawConnect(served.serving.url);
      peer.write(postHead(served.serving.url, { 'Content-Length': 60 * 1024 }) + ' '.repeat(30 * 1024));
      peers.push(peer);
    }
    // A fifth does the same: the budget is spent, so it is refused at once, not held.
    const fifth = await rawConnect(served.serving.url);
    fifth.write(postHead(served.serving.url, { 'Content-Length': 60 * 1024 }) + ' '.repeat(30 * 1024));
    const refused = await within(20_000, 'the 503 past the shared budget', fifth.closed);
    assert.equal(refused.status, 503, `${refused.error ?? ''} ${refused.text}`);
    assert.match(refused.text, /Retry-After: 1/i);
    // A chunked body (no declared length) is counted as it arrives, and refused when it no longer fits.
    const chunked = await rawConnect(served.serving.url);
    chunked.write(postHead(served.serving.url, { 'Transfer-Encoding': 'chunked' }) + `8000\r\n${' '.repeat(0x8000)}\r\n`);
    const cut = await within(20_000, 'the 503 for a chunked body past the shared budget', chunked.closed);
    assert.equal(cut.status, 503, `${cut.error ?? ''} ${cut.text}`);
    for (const p of peers) assert.equal(p.status(), undefined, 'a peer within the budget is still being read');
    // One stalled peer goes away: its share is free again, and a client is served.
    peers.shift()!.socket.destroy();
    const { client } = await within(20_000, 'a client to connect once a share is free', (async () => {
      for (;;) {
        try {
          return await connectClient(served.serving.url);
        } catch (error) {
          if (!/503/.test(String(error))) throw error;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    })());
    await client.close();
  } finally {
    for (const p of peers) p.socket.destroy();
    await served.close();
  }
});

test("a call that runs longer than node's whole-request timeout is not cut: the bounds are on receiving the request only", async () => {
  // headers 250 ms + body 250 ms + 5 s: node's requestTimeout here is 5.5 s.
  const served = await serveFixtureHost({ serve: { headersTimeoutMs: 250, bodyTimeoutMs: 250 } });
  const { client } = await connectClient(served.serving.url);
  try {
    const controller = new AbortController();
    const pending = client.callTool({ name: 'gate', arguments: {} }, undefined, { signal: controller.signal }).catch((e: unknown) => e);
    const started = await waitUntil(() => served.events.find((e) => e.tool === 'gate' && e.phase === 'started'), 'the gate call to start');
    // Wait past node's requestTimeout, by the server's own timer (a connection check runs every 250 ms).
    await new Promise((r) => setTimeout(r, 7_000));
    assert.equal(served.events.find((e) => e.toolCallId === started.toolCallId && e.phase !== 'started'), undefined, 'the call was cut while it ran');
    controller.abort('done waiting');
    await pending;
    const end = await waitUntil(() => served.events.find((e) => e.toolCallId === started.toolCallId && e.phase === 'aborted'), 'the gate call to end');
    assert.match(end.reason ?? '', /cancelled/);
  } finally {
    await client.close();
    await served.close();
  }
});
