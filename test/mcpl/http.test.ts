/**
 * Remote servers over Streamable HTTP (loopback only): the same connection semantics as
 * stdio — MCPL where the server speaks it (policy exchange, lifecycle delivery), tool calls,
 * progress, downstream cancellation, and a server that goes away mid-call ending the call
 * `failed` at once while the host keeps serving.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText } from '../../src/host/results.ts';
import type { ProgressUpdate } from '../../src/host/types.ts';
import { observePolicy, scratchDir, waitUntil } from '../helpers/peers.ts';
import { startHttpPeer } from '../helpers/http-peers.ts';
import { registerWaitTool } from '../helpers/tools.ts';

const silent = () => pino({ level: 'silent' });

test('an MCPL server over HTTP: policy exchange, tools listed and called, lifecycle delivered (as POSTs) for the other tools', async () => {
  const server = await startHttpPeer(scratchDir(), 'remote', {
    observer: true,
    policy: observePolicy(),
    tools: [{ name: 'run', classes: ['shell'] }],
  });
  const host = new ToolHost({ logger: silent() });
  const releases = registerWaitTool(host);
  try {
    const connection = await host.connectServer(server.config);
    assert.equal(connection.speaksMcpl, true);
    assert.equal(connection.pid, undefined);
    const policy = server.peer.events().find((e) => e.event === 'policy')!;
    assert.deepEqual(policy.params.effectiveCapabilities, ['tools', 'toolLifecycle.observe']);
    const listed = host.listTools().find((t) => t.name === 'remote--run')!;
    assert.deepEqual(listed.classes, ['shell']);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'remote--run', input: { n: 1 } });
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(JSON.parse(resultText(outcome.result)), { tool: 'run', args: { n: 1 } });
    // A connection never hears about its own tools; it does hear about the host's built-in.
    const wait = host.dispatch({ inferenceId, name: 'wait', input: {} });
    releases[0]!();
    assert.equal((await wait).status, 'completed');
    await host.flush();
    const seen = (await server.peer.waitFor((e) => e.some((x) => x.event === 'lifecycle' && x.params.phase === 'completed'), 'terminal'))
      .filter((e) => e.event === 'lifecycle')
      .map((e) => [e.params.tool, e.params.phase]);
    assert.deepEqual(seen, [['wait', 'started'], ['wait', 'completed']]);
  } finally {
    await host.close();
    await server.kill();
  }
});

test('progress over HTTP reaches onProgress; an aborted call is cancelled downstream', async () => {
  const server = await startHttpPeer(scratchDir(), 'remote', { tools: [{ name: 'slow' }] });
  const host = new ToolHost({ logger: silent() });
  try {
    await host.connectServer(server.config);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const seen: ProgressUpdate[] = [];
    const outcome = await host.dispatch({ inferenceId, name: 'remote--slow', input: { progress_steps: 3 }, onProgress: (p) => seen.push(p) });
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(seen, [1, 2, 3].map((progress) => ({ progress, total: 3, message: `step ${progress}` })));

    const stream = host.openStream('s');
    const held = host.dispatch({ inferenceId: stream.beginInference(), name: 'remote--slow', input: { delay_ms: 60_000 } });
    await server.peer.waitFor((e) => e.some((x) => x.event === 'call' && x.params.arguments.delay_ms === 60_000), 'the call reached the server');
    stream.end();
    assert.equal((await held).status, 'aborted');
    const [cancelled] = (await server.peer.waitFor((e) => e.some((x) => x.event === 'cancelled'), 'notifications/cancelled')).filter((e) => e.event === 'cancelled');
    assert.equal(typeof cancelled!.params.requestId, 'number');
  } finally {
    await host.close();
    await server.kill();
  }
});

test('a server that goes away mid-call: the call ends failed at once, its tools are unlisted, the host keeps serving', async () => {
  const server = await startHttpPeer(scratchDir(), 'remote', { tools: [{ name: 'slow' }] });
  const host = new ToolHost({ logger: silent(), callTimeoutMs: 120_000 });
  const releases = registerWaitTool(host);
  const closed: string[] = [];
  host.on('server-closed', (info) => closed.push(info.serverId));
  try {
    await host.connectServer(server.config);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const started = performance.now();
    const pending = host.dispatch({ inferenceId, name: 'remote--slow', input: { delay_ms: 60_000 } });
    await server.peer.waitFor((e) => e.some((x) => x.event === 'call'), 'the call reached the server');
    await server.kill();
    const outcome = await pending;
    assert.equal(outcome.status, 'failed');
    assert.match(resultText(outcome.result), /remote--slow/);
    assert.ok(performance.now() - started < 60_000, 'ended by the loss, not by a timeout');
    assert.deepEqual(closed, ['remote']);
    assert.ok(!host.listTools().some((t) => t.serverId === 'remote'));
    const refused = await host.dispatch({ inferenceId, name: 'remote--slow', input: {} });
    assert.equal(refused.refusal?.code, 'server_unavailable');
    const local = host.dispatch({ inferenceId, name: 'wait', input: {} });
    releases[0]!();
    assert.equal((await local).status, 'completed');
  } finally {
    await host.close();
    await server.kill();
  }
});

test('reconnect over HTTP: the server comes back at the same URL; a new epoch and session, its tools listed again', async () => {
  const dir = scratchDir();
  const first = await startHttpPeer(dir, 'remote', { tools: [{ name: 'run' }] });
  const port = Number(new URL(first.url).port);
  const host = new ToolHost({ logger: silent() });
  let second: Awaited<ReturnType<typeof startHttpPeer>> | undefined;
  try {
    const connection = await host.connectServer({ ...first.config, reconnect: { delayMs: 100, maxAttempts: 20 } });
    const closed = new Promise<void>((resolve) => host.once('server-closed', () => resolve()));
    await first.kill();
    await closed;
    assert.ok(!host.listTools().some((t) => t.serverId === 'remote'));
    second = await startHttpPeer(dir, 'remote-2', { tools: [{ name: 'run' }], port });
    await waitUntil(() => connection.isConnected, 'reconnected', 30_000);
    assert.ok(connection.epoch >= 2);
    assert.ok(host.listTools().some((t) => t.name === 'remote--run'));
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'remote--run', input: { n: 2 } });
    assert.equal(outcome.status, 'completed');
    assert.ok(second.peer.events().some((e) => e.event === 'call'), 'the call reached the new server');
  } finally {
    await host.close();
    await first.kill();
    await second?.kill();
  }
});

test('a URL nobody listens on: connectServer fails naming the request that failed', async () => {
  const server = await startHttpPeer(scratchDir(), 'gone', {});
  await server.kill();
  const host = new ToolHost({ logger: silent() });
  try {
    await assert.rejects(host.connectServer({ id: 'gone', url: server.url, requestTimeoutMs: 5_000 }), /server gone failed to start: could not connect to http:.*ECONNREFUSED/);
    assert.equal(host.server('gone'), undefined);
  } finally {
    await host.close();
  }
});

for (const json of [false, true]) {
  test(`an answer over the size limit (${json ? 'JSON body' : 'SSE event'}) fails its call at once, naming limit and size; the session goes on`, async () => {
    const server = await startHttpPeer(scratchDir(), 'remote', { tools: [{ name: 'dump' }], json });
    const host = new ToolHost({ logger: silent(), callTimeoutMs: 120_000 });
    try {
      await host.connectServer({ ...server.config, maxMessageBytes: 64 * 1024 });
      const inferenceId = host.beginInference({ conversationId: 'c' });
      const outcome = await host.dispatch({ inferenceId, name: 'remote--dump', input: { result_bytes: 2 * 1024 * 1024 } });
      assert.equal(outcome.status, 'failed');
      assert.match(resultText(outcome.result), /^Tool remote--dump failed: .*a message of more than \d+ bytes exceeds this transport's limit of 65536 bytes/);
      const small = await host.dispatch({ inferenceId, name: 'remote--dump', input: { result_bytes: 1000 } });
      assert.equal(small.status, 'completed');
      assert.equal(resultText(small.result), 'x'.repeat(1000));
    } finally {
      await host.close();
      await server.kill();
    }
  });
}
