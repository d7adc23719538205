/**
 * serve as a transparent gateway: the client's request `_meta` (trace context, its own keys)
 * reaches the provider; the providers' `instructions` reach the client, labelled per server; a
 * provider that asks for roots as its session starts asks the client that has them (over HTTP
 * and stdio); a provider's error reaches the client with its code and message, one prefix.
 * Real processes: serve, server-everything and the SDK gateway provider, SDK v1 clients.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir } from '../../helpers/peers.ts';
import { binPath } from '../../real-servers/servers.ts';
import { httpClient, serveHttp, signal, textOf } from './two-clients.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const PROVIDER = join(REPO_ROOT, 'test', 'serve', 'gateway', 'provider.ts');
const EVERYTHING = { id: 'ev', command: process.execPath, args: [binPath('everything')], prefixTools: false, required: true };
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

test('the client\'s request _meta reaches the provider\'s tool; its progress token and serve\'s conversation key do not', async () => {
  const provider = { id: 'p', command: process.execPath, args: ['--import', 'tsx', PROVIDER], cwd: REPO_ROOT, prefixTools: false, required: true };
  const serve = await serveHttp({ servers: [provider], codeExecution: false });
  const a = await httpClient(serve.url, 'alice');
  try {
    const result = await a.client.callTool({
      name: 'meta',
      arguments: {},
      _meta: { traceparent: TRACEPARENT, tracestate: 'vendor=1', 'example.com/request': { n: 1 }, 'agent-framework/conversationId': 'c1' },
    });
    const seen = JSON.parse(textOf(result)) as Record<string, unknown>;
    assert.equal(seen.traceparent, TRACEPARENT);
    assert.equal(seen.tracestate, 'vendor=1');
    assert.deepEqual(seen['example.com/request'], { n: 1 });
    assert.equal('agent-framework/conversationId' in seen, false, JSON.stringify(seen));
  } finally {
    await a.end();
    await serve.stop();
  }
});

test('instructions pass through labelled per server; a provider\'s error reaches the client as it reaches a client of the provider itself', async () => {
  const serve = await serveHttp({ servers: [EVERYTHING], codeExecution: false });
  const a = await httpClient(serve.url, 'alice');
  try {
    const theirs = readFileSync(join(binPath('everything'), '..', 'docs', 'instructions.md'), 'utf8').trim();
    assert.equal(a.client.getInstructions(), `## Instructions of server "ev"\n\n${theirs}`);
    const missing = { uri: 'demo://resource/session/nothing-here' };
    const failed = await a.client.readResource(missing).then(() => assert.fail('a resource nobody has was read'), (error: unknown) => error);
    // The same error a client connected to the provider itself gets: code, message, no prefix more.
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [binPath('everything')], stderr: 'ignore' }));
    const expected = await direct.readResource(missing).then(() => assert.fail('read directly'), (error: unknown) => error).finally(() => direct.close());
    assert.ok(failed instanceof McpError && expected instanceof McpError);
    assert.equal(failed.code, expected.code);
    assert.equal(failed.message, expected.message);
    assert.match(failed.message, /Resource demo:\/\/resource\/session\/nothing-here not found$/);
  } finally {
    await a.end();
    await serve.stop();
  }
});

test('http: a provider asking for roots as its session starts asks the client that has them, each client its own', async () => {
  const serve = await serveHttp({ servers: [EVERYTHING], codeExecution: false });
  const clients = [await httpClient(serve.url, 'alice', { roots: {} }), await httpClient(serve.url, 'bob', { roots: {} })];
  try {
    for (const [i, { client }] of clients.entries()) {
      const name = i === 0 ? 'alice' : 'bob';
      const asked = signal(`${name} to be asked for her roots`, 30_000);
      client.setRequestHandler(ListRootsRequestSchema, async () => {
        asked.resolve();
        return { roots: [{ uri: `file:///home/${name}` }] };
      });
      // No roots tool is called: server-everything asks on its own, as the client's upstream session starts.
      assert.match(textOf(await client.callTool({ name: 'echo', arguments: { message: name } })), new RegExp(`Echo: ${name}`));
      await asked.promise;
    }
  } finally {
    for (const c of clients) await c.end();
    await serve.stop();
  }
});

test('stdio: a provider that asked for roots before the client came asks the client once it has come', async () => {
  const config = join(scratchDir(), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [EVERYTHING], codeExecution: false }));
  const client = new Client({ name: 'alice', version: '1.0.0' }, { capabilities: { roots: {} } });
  const asked = signal('the client to be asked for its roots', 30_000);
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked.resolve();
    return { roots: [{ uri: 'file:///home/alice', name: 'alice' }] };
  });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'ignore' }));
  try {
    await asked.promise;
    assert.match(textOf(await client.callTool({ name: 'get-roots-list', arguments: {} })), /file:\/\/\/home\/alice/);
  } finally {
    await client.close();
  }
});

test('http: a client\'s roots/list_changed reaches its upstream session, and the provider asks that client again', async () => {
  const serve = await serveHttp({ servers: [EVERYTHING], codeExecution: false });
  const a = await httpClient(serve.url, 'alice', { roots: { listChanged: true } });
  try {
    let root = 'file:///home/alice/one';
    const askedAgain = signal('alice to be asked again after her roots changed', 30_000);
    a.client.setRequestHandler(ListRootsRequestSchema, async () => {
      if (root.endsWith('two')) askedAgain.resolve();
      return { roots: [{ uri: root }] };
    });
    assert.match(textOf(await a.client.callTool({ name: 'get-roots-list', arguments: {} })), /home\/alice\/one/);
    root = 'file:///home/alice/two';
    await a.client.sendRootsListChanged();
    await askedAgain.promise;
    // The provider stores the answer after our handler returned it: read until it has (each
    // read is a round trip through serve, so this waits on the provider, not on a clock).
    let text = '';
    for (let i = 0; i < 100 && !/home\/alice\/two/.test(text); i++) text = textOf(await a.client.callTool({ name: 'get-roots-list', arguments: {} }));
    assert.match(text, /home\/alice\/two/);
  } finally {
    await a.end();
    await serve.stop();
  }
});
