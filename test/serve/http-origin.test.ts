/**
 * `Origin` is validated on every request, as the MCP Streamable HTTP transport requires: a
 * request whose Origin is present and not allowed is answered 403 (a web page the user visits
 * cannot drive serve through their browser). Loopback origins are allowed, plus the configured
 * `allowedOrigins`; a request without Origin (not from a browser) is served.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveFixtureHost } from './fixture-host.ts';
import { INITIALIZE, postHead, rawConnect } from './raw-http.ts';

async function initializeFrom(url: string, origin: string | undefined): Promise<{ status: number | undefined; text: string }> {
  const peer = await rawConnect(url);
  const headers: Record<string, string | number> = { 'Content-Length': INITIALIZE.length, Connection: 'close' };
  if (origin !== undefined) headers.Origin = origin;
  peer.write(postHead(url, headers) + INITIALIZE);
  const end = await peer.response;
  peer.socket.destroy();
  return end;
}

test('a request with a foreign Origin is answered 403; loopback origins, configured ones and none are served', async () => {
  const served = await serveFixtureHost({ serve: { allowedOrigins: ['https://app.example.com', 'http://tools.internal:8443'] } });
  try {
    const url = served.serving.url;
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null', 'https://app.example.com.evil.example', 'http://app.example.com', 'not a url', 'http://tools.internal']) {
      const answer = await initializeFrom(url, origin);
      assert.equal(answer.status, 403, `${origin}: ${answer.text}`);
      assert.match(answer.text, /Origin .* is not allowed/);
    }
    assert.equal(served.serving.sessionCount(), 0, 'a refused origin opened a session');
    for (const origin of [undefined, 'http://localhost:5173', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'https://localhost', 'https://app.example.com', 'HTTPS://APP.EXAMPLE.COM:443', 'http://tools.internal:8443']) {
      const answer = await initializeFrom(url, origin);
      assert.equal(answer.status, 200, `${origin}: ${answer.text}`);
    }
  } finally {
    await served.close();
  }
});

test('without allowedOrigins only loopback origins are allowed, on every method', async () => {
  const served = await serveFixtureHost();
  try {
    const url = served.serving.url;
    assert.equal((await initializeFrom(url, 'https://app.example.com')).status, 403);
    assert.equal((await initializeFrom(url, 'http://localhost:5173')).status, 200);
    const { host, pathname } = new URL(url);
    for (const method of ['GET', 'DELETE']) {
      const peer = await rawConnect(url);
      peer.write(`${method} ${pathname} HTTP/1.1\r\nHost: ${host}\r\nOrigin: https://evil.example\r\nmcp-session-id: x\r\nConnection: close\r\n\r\n`);
      const end = await peer.response;
      peer.socket.destroy();
      assert.equal(end.status, 403, `${method}: ${end.text}`);
    }
  } finally {
    await served.close();
  }
});
