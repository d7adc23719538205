/**
 * Reconnect as the model and the operator see it: a dead server's tools leave the listing
 * until a new epoch is ready, and `close()` ends a pending back-off so the process can exit
 * (issue 9 item 6: it exited 2.8 s after close() with a 3 s back-off).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { makePeer, scratchDir, waitUntil } from '../helpers/peers.ts';

test("a dead server's tools leave listTools() and come back when it reconnects", async () => {
  const peer = makePeer(scratchDir(), 'p', { tools: [{ name: 'run' }] });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  try {
    const connection = await host.connectServer({ ...peer.config, reconnect: { delayMs: 50 } });
    assert.ok(host.listTools().some((t) => t.name === 'p--run'));
    const closed = new Promise<void>((resolve) => host.once('server-closed', () => resolve()));
    connection.kill();
    await closed;
    assert.ok(!host.listTools().some((t) => t.name === 'p--run'), 'not listed while the server is down');
    await waitUntil(() => connection.isConnected, 'reconnected');
    assert.equal(connection.epoch, 2);
    assert.ok(host.listTools().some((t) => t.name === 'p--run'), 'listed again once reconnected');
  } finally {
    await host.close();
  }
});

test('close() during a 60 s reconnect back-off resolves and leaves no timer keeping the process alive', { timeout: 30_000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./close-during-backoff.child.ts', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(out, 'closed\n');
  assert.equal(code, 0);
});
