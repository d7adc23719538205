/**
 * Where a client's credentials may go, against real loopback servers: an MCP server protected
 * by a real local authorization server (fixtures/oauth-protected.ts, the SDK's server-side
 * auth) whose resource metadata can be switched to name a rogue authorization server
 * (fixtures/oauth-rogue-as.ts, which approves everything and records every request). A client
 * with a pinned issuer, or one holding credentials of its own (pre-registered, client
 * credentials) held to the server it used first, refuses the rogue before anything but its
 * metadata is fetched; so does every client when the metadata's `issuer` is not the URL it was
 * fetched for (RFC 8414); and an authorization response naming another issuer in `iss`, or
 * none where the server advertises it, is refused and its code not used (RFC 9207).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { ToolHost, ConnectError } from '../../src/index.ts';
import { ClientCredentialsProvider, InteractiveAuthProvider, PrivateKeyJwtProvider, type InteractiveAuthOptions } from '../../src/mcpl/auth/index.ts';
import { resultText } from '../../src/host/results.ts';
import { startProtectedServer, type ProtectedServer } from './fixtures/oauth-protected.ts';
import { startRogueAuthorizationServer } from './fixtures/oauth-rogue-as.ts';

const SECRET = 'pre-registered-secret-0b7f3e';

/** The interactive provider with a "browser" that follows whatever authorization URL it is shown, to its end. */
function browsingProvider(options: InteractiveAuthOptions = {}): Promise<InteractiveAuthProvider> {
  return InteractiveAuthProvider.start({
    clientName: 'toolcell-test',
    ...options,
    async onAuthorizationUrl(url) {
      const answer = await fetch(url, { redirect: 'manual' });
      const location = answer.headers.get('location');
      if (location) await (await fetch(location)).text();
    },
  });
}

/** A pre-registered confidential client of `server`, registered with the provider's redirect URI. */
async function preRegistered(server: ProtectedServer, options: InteractiveAuthOptions = {}): Promise<InteractiveAuthProvider> {
  const probe = await InteractiveAuthProvider.start();
  const redirectPort = Number(new URL(probe.redirectUrl).port);
  await probe.close();
  server.preRegister({ client_id: 'toolcell-pre', client_secret: SECRET, redirect_uris: [`http://127.0.0.1:${redirectPort}/callback`], token_endpoint_auth_method: 'client_secret_post' });
  return browsingProvider({ redirectPort, clientInformation: { client_id: 'toolcell-pre', client_secret: SECRET }, ...options });
}

const unauthorized = (pattern: RegExp) => (error: unknown) => error instanceof ConnectError && error.code === 'unauthorized' && pattern.test(error.message);

test('an interactive pre-registered client with a pinned issuer refuses the authorization server the MCP server names instead; its secret goes nowhere', { timeout: 60_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  const rogue = await startRogueAuthorizationServer();
  const provider = await preRegistered(server, { issuer: server.issuer });
  const host = new ToolHost();
  try {
    server.nameAuthorizationServer(rogue.url);
    const refusal = await host.connectServer({ id: 'notes', url: server.url, authProvider: provider }).then(() => undefined, (error: unknown) => error);
    assert.equal(rogue.saw(SECRET), false, 'the secret reached the rogue server');
    assert.deepEqual(rogue.flowRequests(), [], 'no registration, authorization or token request reached the rogue server');
    assert.ok(unauthorized(/credentials belong to .* \(its "issuer" setting\); nothing is sent to/)(refusal), String(refusal));
    // The pinned server itself still works.
    server.nameAuthorizationServer(undefined);
    await host.connectServer({ id: 'notes2', url: server.url, authProvider: provider });
    assert.deepEqual(server.grants.map((g) => g.type), ['authorization_code']);
  } finally {
    await host.close();
    await provider.close();
    await rogue.close();
    await server.close();
  }
});

test('an interactive pre-registered client without a pinned issuer is held to the server it first used: a later switch to a rogue server (refusing registration to push it back to its secret) is refused', { timeout: 60_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  const rogue = await startRogueAuthorizationServer({ registration: 'invalid_client' });
  const provider = await preRegistered(server);
  const host = new ToolHost();
  try {
    await host.connectServer({ id: 'notes', url: server.url, authProvider: provider });
    const inferenceId = host.beginInference({ conversationId: 'c' });
    assert.equal(resultText((await host.dispatch({ inferenceId, name: 'notes--read_note', input: {} })).result), 'the note');

    server.nameAuthorizationServer(rogue.url);
    server.expireAccessTokens();
    const outcome = await host.dispatch({ inferenceId, name: 'notes--read_note', input: {} });
    assert.notEqual(outcome.status, 'completed', resultText(outcome.result));
    assert.equal(rogue.saw(SECRET), false, 'the secret reached the rogue server');
    assert.deepEqual(rogue.flowRequests(), [], 'no registration, authorization or token request reached the rogue server');
  } finally {
    await host.close();
    await provider.close();
    await rogue.close();
    await server.close();
  }
});

test('a client-credentials client without a pinned issuer is held to the server it first used, even when that one refused it', { timeout: 60_000 }, async () => {
  // The SDK's authorization server has no client_credentials grant: the first connect fails there.
  const server = await startProtectedServer(() => ['notes:read']);
  const rogue = await startRogueAuthorizationServer();
  const provider = new ClientCredentialsProvider({ clientId: 'm2m', clientSecret: SECRET });
  const host = new ToolHost();
  try {
    await assert.rejects(host.connectServer({ id: 'first', url: server.url, authProvider: provider }));
    server.nameAuthorizationServer(rogue.url);
    const refusal = await host.connectServer({ id: 'second', url: server.url, authProvider: provider }).then(() => undefined, (error: unknown) => error);
    assert.equal(rogue.saw(SECRET), false, 'the secret reached the rogue server');
    assert.deepEqual(rogue.flowRequests(), []);
    assert.ok(unauthorized(/credentials belong to .*the authorization server it used first/)(refusal), String(refusal));
  } finally {
    await host.close();
    await rogue.close();
    await server.close();
  }
});

test('client-credentials and private_key_jwt clients pinned by expectedIssuer send nothing to another authorization server', { timeout: 60_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  const rogue = await startRogueAuthorizationServer();
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const providers = [
    new ClientCredentialsProvider({ clientId: 'm2m', clientSecret: SECRET, expectedIssuer: server.issuer }),
    new PrivateKeyJwtProvider({ clientId: 'm2m', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, algorithm: 'ES256', expectedIssuer: server.issuer }),
  ];
  const host = new ToolHost();
  try {
    server.nameAuthorizationServer(rogue.url);
    for (const [i, authProvider] of providers.entries()) await assert.rejects(host.connectServer({ id: `m${i}`, url: server.url, authProvider }), unauthorized(/credentials belong to|bound to authorization server/));
    assert.equal(rogue.saw(SECRET), false, 'the secret reached the rogue server');
    assert.deepEqual(rogue.flowRequests(), []);
  } finally {
    await host.close();
    await rogue.close();
    await server.close();
  }
});

test('authorization server metadata whose issuer is not the URL it was fetched for is refused (RFC 8414), even for a client with no issuer of its own', { timeout: 60_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  // The rogue server claims to be the real one.
  const rogue = await startRogueAuthorizationServer({ claimedIssuer: server.issuer });
  const provider = await browsingProvider();
  const cc = new ClientCredentialsProvider({ clientId: 'm2m', clientSecret: SECRET, expectedIssuer: server.issuer });
  const host = new ToolHost();
  try {
    server.nameAuthorizationServer(rogue.url);
    const refusals = [
      await host.connectServer({ id: 'dyn', url: server.url, authProvider: provider }).then(() => undefined, (error: unknown) => error),
      await host.connectServer({ id: 'cc', url: server.url, authProvider: cc }).then(() => undefined, (error: unknown) => error),
    ];
    assert.equal(rogue.saw(SECRET), false, 'the secret reached the rogue server');
    assert.deepEqual(rogue.flowRequests(), [], 'no registration, authorization or token request reached the rogue server');
    assert.ok(unauthorized(/metadata fetched for .* names the issuer .*RFC 8414/)(refusals[0]), String(refusals[0]));
    assert.ok(unauthorized(/RFC 8414|credentials belong to/)(refusals[1]), String(refusals[1]));
  } finally {
    await host.close();
    await provider.close();
    await rogue.close();
    await server.close();
  }
});

test('an authorization response whose iss names another issuer is refused and its code never exchanged (RFC 9207)', { timeout: 60_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read'], undefined, { issParameter: 'other' });
  const provider = await browsingProvider();
  const host = new ToolHost();
  try {
    await assert.rejects(host.connectServer({ id: 'notes', url: server.url, authProvider: provider }), unauthorized(/names the issuer http:\/\/127\.0\.0\.1:1\/, not .*RFC 9207/));
    assert.deepEqual(server.grants, [], 'the code was not exchanged');
  } finally {
    await host.close();
    await provider.close();
    await server.close();
  }
});

test('iss is compared as a string: the issuer without its trailing "/" is another issuer (RFC 9207 §2.4, SEP-2468)', { timeout: 60_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read'], undefined, { issParameter: 'own-unslashed', advertiseIss: true });
  const provider = await browsingProvider();
  const host = new ToolHost();
  try {
    await assert.rejects(host.connectServer({ id: 'notes', url: server.url, authProvider: provider }), unauthorized(/names the issuer http:\/\/127\.0\.0\.1:\d+, not http:\/\/127\.0\.0\.1:\d+\/ .*RFC 9207/));
    assert.deepEqual(server.grants, [], 'the code was not exchanged');
  } finally {
    await host.close();
    await provider.close();
    await server.close();
  }
});

test('a server advertising RFC 9207 must send iss: its own is accepted, none is refused', { timeout: 60_000 }, async () => {
  const signed = await startProtectedServer(() => ['notes:read'], undefined, { issParameter: 'own', advertiseIss: true });
  const unsigned = await startProtectedServer(() => ['notes:read'], undefined, { issParameter: 'none', advertiseIss: true });
  const first = await browsingProvider();
  const second = await browsingProvider();
  const host = new ToolHost();
  try {
    await host.connectServer({ id: 'signed', url: signed.url, authProvider: first });
    assert.deepEqual(signed.grants.map((g) => g.type), ['authorization_code']);
    await assert.rejects(host.connectServer({ id: 'unsigned', url: unsigned.url, authProvider: second }), unauthorized(/carries no "iss", though .* advertises it \(RFC 9207\)/));
    assert.deepEqual(unsigned.grants, []);
  } finally {
    await host.close();
    await first.close();
    await second.close();
    await signed.close();
    await unsigned.close();
  }
});

test('the issuer check in the 2025-03-26 fallback (no authorization server named): the metadata\'s issuer must be on the MCP server\'s origin; with one named, it must be the URL itself', async () => {
  const { IssuerGuard } = await import('../../src/mcpl/auth/issuer-guard.ts');
  const metadata = (issuer: string) => ({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, response_types_supported: ['code'] });
  const fallback = (issuer: string) => ({ authorizationServerUrl: 'http://127.0.0.1:4000/', authorizationServerMetadata: metadata(issuer) });
  const named = (issuer: string) => ({ ...fallback(issuer), resourceMetadata: { resource: 'http://127.0.0.1:4000/mcp', authorization_servers: ['http://127.0.0.1:4000/'] } });
  assert.equal(new IssuerGuard(undefined, false).check(fallback('http://127.0.0.1:4000/oauth')).issuer, 'http://127.0.0.1:4000/oauth', 'a path on the same origin, as 2025-03-26 allowed');
  assert.throws(() => new IssuerGuard(undefined, false).check(fallback('http://127.0.0.1:4001/')), /names the issuer http:\/\/127\.0\.0\.1:4001\/; without protected resource metadata the issuer must be on the MCP server's origin/);
  assert.throws(() => new IssuerGuard(undefined, false).check(named('http://127.0.0.1:4000/oauth')), /RFC 8414 requires the URL it was fetched for/);
  assert.equal(new IssuerGuard(undefined, false).check(named('http://127.0.0.1:4000')).issuer, 'http://127.0.0.1:4000', 'one trailing "/" apart');
  // A pin names the authorization server's URL: in the fallback, the MCP server's origin.
  assert.throws(() => new IssuerGuard('http://127.0.0.1:4000/oauth', false).check(fallback('http://127.0.0.1:4000/oauth')), /credentials belong to http:\/\/127\.0\.0\.1:4000\/oauth/);
  assert.doesNotThrow(() => new IssuerGuard('http://127.0.0.1:4000/', false).check(fallback('http://127.0.0.1:4000/oauth')));
});
