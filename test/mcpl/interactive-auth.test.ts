/** The interactive provider's wait for the redirect: bounded by `authorizationTimeoutMs`, then it fails saying so. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InteractiveAuthProvider } from '../../src/mcpl/auth/index.ts';

test('waitForAuthorizationCode fails after authorizationTimeoutMs when nobody comes back', async () => {
  const provider = await InteractiveAuthProvider.start({ authorizationTimeoutMs: 1000 });
  try {
    await assert.rejects(provider.waitForAuthorizationCode(), /nobody authorized within 1000 ms/);
  } finally {
    await provider.close();
  }
});

test('a refusal that starts no authorization (401, and registration refused too) fails connectServer unauthorized at once instead of waiting for a code', { timeout: 30_000 }, async () => {
  const { createServer } = await import('node:http');
  const { ToolHost, ConnectError } = await import('../../src/index.ts');
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
