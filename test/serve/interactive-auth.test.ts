/**
 * serve's `"auth": { "type": "interactive" }` end to end: `toolcell serve` (a real process)
 * in front of an MCP server protected by a real local authorization server (the SDK's
 * server-side auth, test/mcpl/fixtures/oauth-protected.ts). serve prints the authorization
 * URL on stderr, naming the server; the "browser" here follows it, the authorization server
 * redirects to serve's loopback listener, and serve connects the server: the SDK client sees
 * its tools and calls one. A request to the listener with a wrong `state` (sent while serve
 * waits) is answered with an error page and logged on stderr, and serve goes on waiting for
 * the real redirect; once it came, the listener is closed, and a replay finds nobody. A
 * pre-registered client whose `issuer` is pinned refuses the authorization server the MCP
 * server names instead, and its secret reaches nobody.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { startProtectedServer } from '../mcpl/fixtures/oauth-protected.ts';
import { startRogueAuthorizationServer } from '../mcpl/fixtures/oauth-rogue-as.ts';
import { InteractiveAuthProvider } from '../../src/mcpl/auth/index.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

test('serve with an interactive auth key prints the authorization URL on stderr, takes the redirect and serves the protected server', { timeout: 90_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  const config = join(scratchDir(), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'notes', url: server.url, required: true, auth: { type: 'interactive', clientName: 'serve-test' } }], codeExecution: false }));
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'pipe' });
  // The person: reads the URL serve printed and completes the authorization in a "browser".
  const browsed = new Promise<string>((resolve, reject) => {
    let seen = '';
    transport.stderr!.on('data', (chunk: Buffer) => {
      const before = seen;
      seen += chunk.toString('utf8');
      const match = seen.match(/toolcell: server "notes" needs authorization; open this URL in a browser: (\S+)\n/);
      if (!match || before.match(/needs authorization/)) return;
      void (async () => {
        const answer = await fetch(match[1]!, { redirect: 'manual' }).catch((e: Error) => { throw new Error(`authorize: ${e.message}`, { cause: e.cause }); });
        const location = answer.headers.get('location');
        if (!location) throw new Error(`the authorization endpoint answered ${answer.status} without a redirect`);
        const landed = await fetch(location).catch((e: Error) => { throw new Error(`callback ${location}: ${e.message}`, { cause: e.cause }); });
        resolve(`${landed.status} ${await landed.text()}`);
      })().catch((e: Error) => reject(new Error(`${e.message}: ${String((e as { cause?: unknown }).cause)} in ${seen}`)));
    });
  });
  const client = new Client({ name: 'user', version: '1.0.0' });
  try {
    await client.connect(transport);
    assert.equal(await browsed, '200 Authorized. You can close this window.');
    assert.deepEqual(server.authorizations, [['notes:read']]);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(tools, ['notes--read_note']);
    assert.deepEqual((await client.callTool({ name: 'notes--read_note', arguments: {} })).content, [{ type: 'text', text: 'the note' }]);
  } finally {
    await client.close();
    await server.close();
  }
});

test('serve ignores and logs a redirect with a wrong state, completes the real one, and then closes its listener', { timeout: 90_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  const config = join(scratchDir(), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'notes', url: server.url, required: true, auth: { type: 'interactive', clientName: 'serve-test' } }], codeExecution: false }));
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'pipe' });
  let seen = '';
  transport.stderr!.on('data', (chunk: Buffer) => void (seen += chunk.toString('utf8')));
  // The attacker's request goes first (a guessed state, its own code); then the person's browser lands.
  const browsed = new Promise<{ forged: string; real: string; location: string }>((resolve, reject) => {
    let started = false;
    transport.stderr!.on('data', () => {
      const match = seen.match(/toolcell: server "notes" needs authorization; open this URL in a browser: (\S+)\n/);
      if (!match || started) return;
      started = true;
      void (async () => {
        const answer = await fetch(match[1]!, { redirect: 'manual' });
        const location = answer.headers.get('location')!;
        const attack = new URL(location);
        attack.searchParams.set('state', 'guessed');
        attack.searchParams.set('code', 'attacker-code');
        const forged = await fetch(attack);
        const forgedText = `${forged.status} ${await forged.text()}`;
        const landed = await fetch(location);
        resolve({ forged: forgedText, real: `${landed.status} ${await landed.text()}`, location });
      })().catch((e: Error) => reject(new Error(`${e.message} in ${seen}`)));
    });
  });
  const client = new Client({ name: 'user', version: '1.0.0' });
  try {
    await client.connect(transport);
    const { forged, real, location } = await browsed;
    assert.match(forged, /^400 .*state/);
    assert.equal(real, '200 Authorized. You can close this window.');
    assert.match(seen, /toolcell: server "notes": ignored a redirect .*state/);
    assert.doesNotMatch(seen, /attacker-code/);
    assert.deepEqual((await client.callTool({ name: 'notes--read_note', arguments: {} })).content, [{ type: 'text', text: 'the note' }]);
    await assert.rejects(fetch(location), (error: Error) => (error.cause as { code?: string } | undefined)?.code === 'ECONNREFUSED');
  } finally {
    await client.close();
    await server.close();
  }
});

test('serve: an interactive pre-registered client with "issuer" pinned refuses the authorization server the MCP server names instead; serve exits saying why and the secret goes nowhere', { timeout: 90_000 }, async () => {
  const server = await startProtectedServer(() => ['notes:read']);
  const rogue = await startRogueAuthorizationServer();
  const probe = await InteractiveAuthProvider.start();
  const redirectPort = Number(new URL(probe.redirectUrl).port);
  await probe.close();
  const dir = scratchDir();
  const secret = 'serve-pre-registered-secret-71c2';
  writeFileSync(join(dir, 'secret'), `${secret}\n`, { mode: 0o600 });
  server.preRegister({ client_id: 'toolcell-pre', client_secret: secret, redirect_uris: [`http://127.0.0.1:${redirectPort}/callback`] });
  server.nameAuthorizationServer(rogue.url);
  const config = join(dir, 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'notes', url: server.url, required: true, auth: { type: 'interactive', clientId: 'toolcell-pre', clientSecretFile: 'secret', redirectPort, issuer: server.issuer } }], codeExecution: false }));
  try {
    // Spawned, not spawnSync: the servers it reaches live in this process's event loop.
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--config', config], { cwd: REPO_ROOT, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const run = { status, stderr };
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /credentials belong to .* \(its "issuer" setting\); nothing is sent to/);
    assert.equal(rogue.saw(secret), false, 'the secret reached the rogue server');
    assert.deepEqual(rogue.flowRequests(), []);
    assert.doesNotMatch(run.stderr, new RegExp(secret));
  } finally {
    await rogue.close();
    await server.close();
  }
});
