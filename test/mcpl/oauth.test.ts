/**
 * OAuth against a real SDK server over loopback HTTP: the SDK's McpServer behind the SDK's
 * `requireBearerAuth`, reached with toolcell's token-file provider. A valid token connects;
 * a refused one fails `connectServer` with ConnectError code `unauthorized`; a token file other
 * users can read is refused, saying why, and its token is not sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
// @ts-expect-error express (the SDK's dependency) ships no types; only json(), post() and listen() are used.
import express from 'express';
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { ToolHost, ConnectError } from '../../src/index.ts';
import { TokenFileProvider } from '../../src/mcpl/auth/index.ts';

/** Every bearer token the server was shown. */
const presented: string[] = [];

async function startServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.use(express.json());
  const verifier = {
    async verifyAccessToken(token: string) {
      presented.push(token);
      if (token !== 'good-token') throw new InvalidTokenError('unknown token');
      return { token, clientId: 'c', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
    },
  };
  app.post('/mcp', requireBearerAuth({ verifier }), async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool('hello', { description: 'says hello' }, async () => ({ content: [{ type: 'text', text: 'hello' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const listener: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => listener.once('listening', resolve));
  const { port } = listener.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise((resolve) => listener.close(() => resolve())) };
}

test('a token the server accepts connects; a refused one fails with ConnectError unauthorized', async () => {
  const server = await startServer();
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-oauth-'));
  const tokenPath = join(dir, 'token');
  const host = new ToolHost();
  try {
    writeFileSync(tokenPath, 'good-token\n', { mode: 0o600 });
    await host.connectServer({ id: 'ok', url: server.url, authProvider: new TokenFileProvider(tokenPath) });
    assert.ok(host.listTools().some((t) => t.name === 'ok--hello'));

    writeFileSync(tokenPath, 'bad-token\n');
    await assert.rejects(
      host.connectServer({ id: 'refused', url: server.url, authProvider: new TokenFileProvider(tokenPath) }),
      (error: unknown) => error instanceof ConnectError && error.code === 'unauthorized' && error.serverId === 'refused' && !/bad-token/.test(error.message),
    );
  } finally {
    await host.close();
    await server.close();
  }
});

test('authProvider is refused on a stdio server and when it is not a provider', async () => {
  const host = new ToolHost();
  await assert.rejects(host.connectServer({ id: 'x', command: 'node', authProvider: {} } as never), /authProvider: only for a remote/);
  await assert.rejects(host.connectServer({ id: 'y', url: 'http://127.0.0.1:1/mcp', authProvider: { tokens() {} } } as never), /not an OAuthClientProvider \(missing saveTokens/);
  await host.close();
});

test('a token file other users can read is refused at the read, saying why; its token is never sent', async () => {
  const server = await startServer();
  const tokenPath = join(mkdtempSync(join(tmpdir(), 'toolcell-oauth-')), 'token');
  writeFileSync(tokenPath, 'good-token\n');
  chmodSync(tokenPath, 0o644);
  const host = new ToolHost();
  const before = presented.length;
  try {
    await assert.rejects(host.connectServer({ id: 'open', url: server.url, authProvider: new TokenFileProvider(tokenPath) }), (error: Error) =>
      new RegExp(`token file ${tokenPath} is readable by group/others \\(mode 0644\\); chmod 600 it`).test(`${error.message} ${String((error.cause as Error | undefined)?.message)}`),
    );
    assert.equal(presented.length, before, 'the server was shown no token');
    chmodSync(tokenPath, 0o600);
    await host.connectServer({ id: 'closed', url: server.url, authProvider: new TokenFileProvider(tokenPath) });
    assert.ok(host.listTools().some((t) => t.name === 'closed--hello'));
  } finally {
    await host.close();
    await server.close();
  }
});
