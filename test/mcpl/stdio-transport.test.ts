/**
 * The stdio transport's limits: a response over the size limit fails its request at once
 * (issue 13: it used to be skipped and the call waited for its 5-minute safety timeout), and
 * writers blocked behind a full pipe share one wait for `drain` (issue 9 item 7: one listener
 * each meant a MaxListenersExceededWarning with 11 of them).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText } from '../../src/host/results.ts';
import { StdioTransport } from '../../src/mcpl/transports/stdio.ts';
import { makePeer, scratchDir } from '../helpers/peers.ts';

test('a 20 MB result over the 16 MiB limit ends the call failed at once, naming the limit and the size; the connection stays usable', async () => {
  const peer = makePeer(scratchDir(), 'big', { tools: [{ name: 'dump' }] });
  const host = new ToolHost({ logger: pino({ level: 'silent' }), callTimeoutMs: 120_000 });
  const garbage: string[] = [];
  host.on('diagnostic', (d) => {
    if (d.code === 'garbage-line') garbage.push(d.message);
  });
  try {
    await host.connectServer(peer.config);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const started = performance.now();
    const outcome = await host.dispatch({ inferenceId, name: 'big--dump', input: { result_bytes: 20 * 1024 * 1024 } });
    const elapsed = performance.now() - started;
    assert.equal(outcome.status, 'failed');
    const text = resultText(outcome.result);
    assert.match(text, /^Tool big--dump failed: .*a message of (\d+) bytes exceeds this transport's limit of 16777216 bytes/);
    assert.ok(Number(/of (\d+) bytes/.exec(text)![1]) > 20 * 1024 * 1024);
    assert.ok(elapsed < 60_000, `failed by the limit, not by the safety timeout (${Math.round(elapsed)} ms)`);
    console.log(`# 20 MB result failed in ${Math.round(elapsed)} ms`);
    assert.equal(garbage.length, 1, 'one diagnostic for the dropped line, nothing reported as "not JSON"');
    const next = await host.dispatch({ inferenceId, name: 'big--dump', input: { result_bytes: 10 } });
    assert.equal(next.status, 'completed');
    assert.equal(resultText(next.result), 'x'.repeat(10));
  } finally {
    await host.close();
  }
});

test('the limit is configurable (maxMessageBytes)', async () => {
  const peer = makePeer(scratchDir(), 'big', { tools: [{ name: 'dump' }] });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  try {
    await host.connectServer({ ...peer.config, maxMessageBytes: 64 * 1024 });
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'big--dump', input: { result_bytes: 100_000 } });
    assert.equal(outcome.status, 'failed');
    assert.match(resultText(outcome.result), /exceeds this transport's limit of 65536 bytes/);
    assert.equal((await host.dispatch({ inferenceId, name: 'big--dump', input: { result_bytes: 1000 } })).status, 'completed');
  } finally {
    await host.close();
  }
});

test('twenty writers blocked behind a full pipe share one drain wait: no MaxListenersExceededWarning', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  // A child that never reads its stdin: the pipe fills and stays full.
  const transport = new StdioTransport({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1 << 30)'], env: {} });
  await transport.start();
  try {
    const chunk = 'x'.repeat(256 * 1024) + '\n';
    const writes = Array.from({ length: 20 }, () => transport.writeRaw(chunk));
    assert.ok(transport.congested);
    const settled = writes.map((w) => w.then(() => 'drained', (e: Error) => e.message));
    // Warnings are emitted on the next tick; give them one full turn of the loop.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings.filter((name) => name === 'MaxListenersExceededWarning'), []);
    transport.kill();
    for (const outcome of await Promise.all(settled.slice(1))) assert.equal(outcome, 'transport closed');
  } finally {
    process.off('warning', onWarning);
    transport.kill();
  }
});
