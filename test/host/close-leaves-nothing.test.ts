/**
 * Found by the fault run: `close()` while a server's restart back-off was pending left the
 * back-off timer running (issue 9, item 6) — the process stayed alive for the whole back-off —
 * and an attempt that failed because of the close started another back-off.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { makePeer, scratchDir, waitUntil } from '../helpers/peers.ts';

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

test('close() during a reconnect back-off leaves no timer behind', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const connection = await host.connectServer({ ...provider.config, reconnect: { delayMs: 60_000 } });
  const closed = new Promise<void>((resolve) => host.on('server-closed', () => resolve()));
  const before = timers();
  connection.kill();
  await closed; // the back-off has started
  await host.close();
  // What close() started itself (a kill escalation) is cleared once it resolves; a 60 s back-off would remain.
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(timers() <= before, `timers after close: ${timers()}, before the crash: ${before}`);
});

test('close() while a reconnect attempt is connecting starts no new back-off', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const connection = await host.connectServer({ ...provider.config, reconnect: { delayMs: 100, maxAttempts: 5 } });
  const closed = new Promise<void>((resolve) => host.on('server-closed', () => resolve()));
  const before = timers();
  connection.kill();
  await closed;
  await waitUntil(() => connection.state === 'connecting' || undefined, 'the reconnect attempt started');
  const failed = new Promise<void>((resolve) => host.on('diagnostic', (d) => d.code === 'reconnect-failed' && resolve()));
  await host.close();
  await failed; // the attempt failed because the host closed; a second attempt would now wait 200 ms
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(timers() <= before, `timers after close: ${timers()}, before the crash: ${before}`);
});
