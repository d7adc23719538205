/**
 * The interactive provider's loopback redirect listener, alone and against a real local
 * authorization server and the MCP server it protects (fixtures/oauth-protected.ts, the SDK's
 * server-side auth): the wait for the redirect is bounded; a request whose `state` is not the
 * authorization's is answered with an error page, logged and ignored (the real redirect still
 * completes it); the listener is closed once the flow ends, so a replayed redirect finds
 * nobody.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolHost } from '../../src/index.ts';
import { InteractiveAuthProvider } from '../../src/mcpl/auth/index.ts';
import { resultText } from '../../src/host/results.ts';
import { startProtectedServer } from './fixtures/oauth-protected.ts';

test('waitForAuthorizationCode fails after authorizationTimeoutMs when nobody comes back, and at once when no authorization was started', async () => {
  const provider = await InteractiveAuthProvider.start({ authorizationTimeoutMs: 1000, onAuthorizationUrl: () => {} });
  try {
    await assert.rejects(provider.waitForAuthorizationCode(), /no authorization is under way/);
    provider.state();
    await provider.redirectToAuthorization(new URL('http://127.0.0.1:9/authorize'));
    await assert.rejects(provider.waitForAuthorizationCode(), /nobody authorized within 1000 ms/);
  } finally {
    await provider.close();
  }
});

test('a refusal that starts no authorization (401, and registration refused too) fails connectServer unauthorized at once instead of waiting for a code', { timeout: 30_000 }, async () => {
  const { createServer } = await import('node:http');
  const { ConnectError } = await import('../../src/index.ts');
  const forbidding = createServer((_req, res) => res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('no entry'));
  await new Promise<void>((resolve) => forbidding.listen(0, '127.0.0.1', () => resolve()));
  const provider = await InteractiveAuthProvider.start();
  const host = new ToolHost();
  try {
    const url = `http://127.0.0.1:${(forbidding.address() as { port: number }).port}/mcp`;
    await assert.rejects(host.connectServer({ id: 'f', url, authProvider: provider }), (error: unknown) => error instanceof ConnectError && error.code === 'unauthorized');
  } finally {
    await host.close();
    await provider.close();
    await new Promise((resolve) => forbidding.close(resolve));
  }
});

/**
 * A provider whose "browser" starts once toolcell waits for the redirect (so a request that
 * arrives early cannot be mistaken for one that arrived during the wait): it follows the
 * authorization URL, lets `before(location)` act first (an attacker's request), then lands the
 * real redirect.
 */
async function providerWithBrowser(log: string[], before: (location: URL) => Promise<void>): Promise<{ provider: InteractiveAuthProvider; landed: Promise<URL> }> {
  let authorizationUrl: URL | undefined;
  let land!: (location: URL) => void;
  let fail!: (error: Error) => void;
  const landed = new Promise<URL>((resolve, reject) => ((land = resolve), (fail = reject)));
  const provider = await InteractiveAuthProvider.start({ clientName: 'toolcell-test', log: (line) => log.push(line), onAuthorizationUrl: (url) => void (authorizationUrl = url) });
  const wait = provider.waitForAuthorizationCode.bind(provider);
  provider.waitForAuthorizationCode = () => {
    const waited = wait();
    void (async () => {
      const answer = await fetch(authorizationUrl!, { redirect: 'manual' });
      const location = new URL(answer.headers.get('location') ?? 'about:blank');
      await before(location);
      const real = await fetch(location);
      assert.equal(real.status, 200, await real.text());
      land(location);
    })().catch(fail);
    return waited;
  };
  return { provider, landed };
}

test('a redirect with a wrong state is answered with an error page and logged, and the real authorization still completes', { timeout: 60_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  const log: string[] = [];
  const forged: string[] = [];
  const { provider, landed } = await providerWithBrowser(log, async (location) => {
    const attack = new URL(location);
    attack.searchParams.set('state', 'not-the-state');
    attack.searchParams.set('code', 'attacker-code');
    const answer = await fetch(attack);
    forged.push(`${answer.status} ${await answer.text()}`);
    const noState = new URL(location);
    noState.searchParams.delete('state');
    const second = await fetch(noState);
    forged.push(`${second.status} ${await second.text()}`);
  });
  const host = new ToolHost();
  try {
    await host.connectServer({ id: 'notes', url: server.url, authProvider: provider });
    await landed;
    assert.equal(forged.length, 2);
    for (const answer of forged) assert.match(answer, /^400 .*state/);
    assert.equal(log.length, 2, log.join('\n'));
    for (const line of log) {
      assert.match(line, /ignored a redirect .*state/);
      assert.doesNotMatch(line, /attacker-code/, 'the query is not logged');
    }
    const inferenceId = host.beginInference({ conversationId: 'c' });
    assert.equal(resultText((await host.dispatch({ inferenceId, name: 'notes--read_note', input: {} })).result), 'the note');
    assert.deepEqual(server.grants.map((g) => g.type), ['authorization_code']);
  } finally {
    await host.close();
    await provider.close();
    await server.close();
  }
});

test('the redirect listener is closed once the flow ends: a replayed redirect is refused at the socket', { timeout: 60_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  const { provider, landed } = await providerWithBrowser([], async () => {});
  const host = new ToolHost();
  try {
    await host.connectServer({ id: 'notes', url: server.url, authProvider: provider });
    const location = await landed;
    await assert.rejects(fetch(location), (error: Error) => /ECONNREFUSED/.test(String((error.cause as Error | undefined)?.message ?? (error.cause as { code?: string })?.code)));
  } finally {
    await host.close();
    await provider.close();
    await server.close();
  }
});

test('a wait that times out closes the listener too', { timeout: 30_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  let authorizationUrl: URL | undefined;
  const provider = await InteractiveAuthProvider.start({ authorizationTimeoutMs: 1000, onAuthorizationUrl: (url) => void (authorizationUrl = url) });
  const host = new ToolHost();
  try {
    await assert.rejects(host.connectServer({ id: 'notes', url: server.url, authProvider: provider }), /nobody authorized within 1000 ms/);
    const answer = await fetch(authorizationUrl!, { redirect: 'manual' });
    await assert.rejects(fetch(answer.headers.get('location')!), (error: Error) => /ECONNREFUSED/.test(String((error.cause as { code?: string } | undefined)?.code)));
  } finally {
    await host.close();
    await provider.close();
    await server.close();
  }
});

test('ignored redirects are logged up to MAX_LOGGED_IGNORED_REDIRECTS per authorization, then one line says the rest are not', { timeout: 30_000 }, async () => {
  const { MAX_LOGGED_IGNORED_REDIRECTS } = await import('../../src/mcpl/auth/interactive.ts');
  const log: string[] = [];
  const provider = await InteractiveAuthProvider.start({ log: (line) => log.push(line), onAuthorizationUrl: () => {} });
  try {
    const state = provider.state();
    await provider.redirectToAuthorization(new URL('http://127.0.0.1:9/authorize'));
    const waited = provider.waitForAuthorizationCode();
    for (let i = 0; i < MAX_LOGGED_IGNORED_REDIRECTS + 5; i++) {
      const answer = await fetch(`${provider.redirectUrl}?code=c${i}&state=wrong${i}`);
      assert.equal(answer.status, 400);
      assert.equal(answer.headers.get('connection'), 'close', 'every answer closes its connection');
      await answer.text();
    }
    assert.equal(log.length, MAX_LOGGED_IGNORED_REDIRECTS + 1);
    assert.match(log.at(-1)!, /no more are logged/);
    const real = await fetch(`${provider.redirectUrl}?code=the-code&state=${state}`);
    assert.equal(real.status, 200);
    assert.equal(await waited, 'the-code');
  } finally {
    await provider.close();
  }
});

test('the authorization server\'s error redirect (with the right state) ends the flow with its reason and closes the listener', { timeout: 30_000 }, async () => {
  const provider = await InteractiveAuthProvider.start({ onAuthorizationUrl: () => {} });
  try {
    const state = provider.state();
    await provider.redirectToAuthorization(new URL('http://127.0.0.1:9/authorize'));
    const refused = assert.rejects(provider.waitForAuthorizationCode(), /the authorization server answered access_denied: no/);
    const answer = await fetch(`${provider.redirectUrl}?error=access_denied&error_description=no&state=${state}`);
    assert.equal(answer.status, 400);
    await answer.text();
    await refused;
    await assert.rejects(fetch(`${provider.redirectUrl}?code=late&state=${state}`), (error: Error) => (error.cause as { code?: string } | undefined)?.code === 'ECONNREFUSED');
  } finally {
    await provider.close();
  }
});

test('an authorization whose redirect port another process took meanwhile fails saying so', { timeout: 30_000 }, async () => {
  const { createServer } = await import('node:http');
  const provider = await InteractiveAuthProvider.start({ onAuthorizationUrl: () => {} });
  const port = Number(new URL(provider.redirectUrl).port);
  const squatter = createServer((_req, res) => res.end('mine'));
  await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', () => resolve()));
  try {
    provider.state();
    await assert.rejects(provider.redirectToAuthorization(new URL('http://127.0.0.1:9/authorize')), new RegExp(`cannot open the redirect listener on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
  } finally {
    await provider.close();
    await new Promise((resolve) => squatter.close(resolve));
  }
});
