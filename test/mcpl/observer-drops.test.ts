/**
 * An observer's drop counters survive its reconnect: the connection's new queue starts from the
 * old one's counts (metrics and operators read one monotonic number per observer).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { makePeer, scratchDir, waitUntil } from '../helpers/peers.ts';

test("an observer's drop count survives its reconnect", async () => {
  const peer = makePeer(scratchDir(), 'obs', {
    observer: true,
    filter: { rules: [{ match: {} }] },
    policy: { enabledCapabilities: ['toolLifecycle.observe'] },
  });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'noop', description: 'does nothing', inputSchema: { type: 'object' }, handler: async () => textResult('ok') });
  try {
    // One call a second: of a quick burst of six, five are dropped for this observer.
    const connection = await host.connectServer({ ...peer.config, maxObservedCallsPerSecond: 1, reconnect: { delayMs: 50 } });
    await waitUntil(() => connection.lifecycleState() !== null, 'the observer subscribed', 30_000);
    const stream = host.openStream('c');
    const inferenceId = stream.beginInference();
    for (let i = 0; i < 6; i++) await host.dispatch({ inferenceId, name: 'noop', input: {} });
    const before = connection.queue.stats.droppedCalls;
    assert.ok(before >= 4, `calls were dropped (${before})`);
    const closed = new Promise<void>((resolve) => host.once('server-closed', () => resolve()));
    connection.kill();
    await closed;
    await waitUntil(() => connection.isConnected, 'reconnected', 30_000);
    assert.equal(connection.epoch, 2);
    assert.ok(connection.queue.stats.droppedCalls >= before, `the count went from ${before} to ${connection.queue.stats.droppedCalls}`);
  } finally {
    await host.close();
  }
});
