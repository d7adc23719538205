/**
 * Token refresh and scope step-up as the SDK implements them, against a real local
 * authorization server and an MCP server it protects (fixtures/oauth-protected.ts, the SDK's
 * server-side auth), reached with toolcell's InteractiveAuthProvider; the "browser" follows
 * the authorization URL to the provider's loopback listener. An expired access token is
 * refreshed with the refresh token and the call succeeds, without a second authorization; a
 * 403 `insufficient_scope` leads to a new authorization with the wider scope, and the call
 * that met it succeeds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolHost } from '../../src/index.ts';
import { InteractiveAuthProvider } from '../../src/mcpl/auth/index.ts';
import { resultText } from '../../src/host/results.ts';
import { z } from 'zod';
import { startProtectedServer } from './fixtures/oauth-protected.ts';

/** The interactive provider, with a browser that approves at once (the server redirects without asking). */
function browserlessProvider(): Promise<InteractiveAuthProvider> {
  return InteractiveAuthProvider.start({
    clientName: 'toolcell-test',
    async onAuthorizationUrl(url) {
      const answer = await fetch(url, { redirect: 'manual' });
      const location = answer.headers.get('location');
      if (!location) throw new Error(`the authorization endpoint answered ${answer.status} without a redirect`);
      await fetch(location);
    },
  });
}

test('an expired access token is refreshed with the refresh token, and the call succeeds', async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  const provider = await browserlessProvider();
  const host = new ToolHost();
  try {
    await host.connectServer({ id: 'notes', url: server.url, authProvider: provider });
    const inferenceId = host.beginInference({ conversationId: 'c' });
    assert.equal(resultText((await host.dispatch({ inferenceId, name: 'notes--read_note', input: {} })).result), 'the note');
    const first = provider.tokens()!.access_token;

    server.expireAccessTokens();
    const outcome = await host.dispatch({ inferenceId, name: 'notes--read_note', input: {} });
    assert.equal(outcome.status, 'completed', resultText(outcome.result));
    assert.equal(resultText(outcome.result), 'the note');
    assert.deepEqual(server.grants.map((g) => g.type), ['authorization_code', 'refresh_token']);
    assert.equal(server.authorizations.length, 1, 'no second authorization: the refresh token sufficed');
    assert.notEqual(provider.tokens()!.access_token, first);
  } finally {
    await host.close();
    await provider.close();
    await server.close();
  }
});

test('a 403 insufficient_scope leads to a new authorization with the wider scope, and the call succeeds', async () => {
  // Listing needs notes:read; calling a tool needs notes:write as well.
  const server = await startProtectedServer((method) => (method === 'tools/call' ? ['notes:read', 'notes:write'] : ['notes:read']));
  const provider = await browserlessProvider();
  const host = new ToolHost();
  try {
    await host.connectServer({ id: 'notes', url: server.url, authProvider: provider });
    assert.deepEqual(server.authorizations, [['notes:read']]);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'notes--read_note', input: {} });
    assert.equal(outcome.status, 'completed', resultText(outcome.result));
    assert.equal(resultText(outcome.result), 'the note');
    assert.deepEqual(server.authorizations, [['notes:read'], ['notes:read', 'notes:write']]);
    assert.deepEqual(server.grants.map((g) => [g.type, g.scopes.join(' ')]), [
      ['authorization_code', 'notes:read'],
      ['authorization_code', 'notes:read notes:write'],
    ]);
    // The wider grant keeps working.
    assert.equal(resultText((await host.dispatch({ inferenceId, name: 'notes--read_note', input: {} })).result), 'the note');
    assert.equal(server.authorizations.length, 2);
  } finally {
    await host.close();
    await provider.close();
    await server.close();
  }
});

test('a step-up asks for the union of the scope held and the scope challenged (SEP-2350), so what the first grant covered keeps working', async () => {
  // Listing needs notes:read; calling a tool needs notes:write, and its challenge names only that.
  const server = await startProtectedServer((method) => (method === 'tools/call' ? ['notes:write'] : ['notes:read']));
  const provider = await browserlessProvider();
  const host = new ToolHost();
  try {
    const connection = await host.connectServer({ id: 'notes', url: server.url, authProvider: provider });
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'notes--read_note', input: {} });
    assert.equal(outcome.status, 'completed', resultText(outcome.result));
    assert.deepEqual(server.authorizations.map((scopes) => [...scopes].sort()), [['notes:read'], ['notes:read', 'notes:write']]);
    // Listing again (notes:read) needs no third authorization.
    await connection.refreshTools();
    assert.equal(server.authorizations.length, 2);
  } finally {
    await host.close();
    await provider.close();
    await server.close();
  }
});

test('a step-up the authorization server will not grant fails that call once, and the grant the session has keeps working', async () => {
  const server = await startProtectedServer((method) => (method === 'tools/call' ? ['notes:read', 'notes:write'] : ['notes:read']), ['notes:read']);
  const provider = await browserlessProvider();
  const host = new ToolHost();
  try {
    await host.connectServer({ id: 'notes', url: server.url, authProvider: provider });
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const refused = await host.dispatch({ inferenceId, name: 'notes--read_note', input: {} });
    assert.notEqual(refused.status, 'completed', resultText(refused.result));
    assert.match(resultText(refused.result), /403/);
    assert.equal(server.authorizations.length, 2, 'one step-up was tried');
    // The same challenge again: no new browser round trip, and the tokens were not dropped for it.
    const again = await host.dispatch({ inferenceId, name: 'notes--read_note', input: {} });
    assert.notEqual(again.status, 'completed');
    assert.equal(server.authorizations.length, 2);
    const listed = await host.requestServer('notes', 'tools/list', {}, z.object({ tools: z.array(z.object({ name: z.string() }).passthrough()) }));
    assert.deepEqual(listed.tools.map((t) => t.name), ['read_note']);
    assert.equal(server.authorizations.length, 2, 'the narrower grant still serves what it covers');
  } finally {
    await host.close();
    await provider.close();
    await server.close();
  }
});
