/**
 * `subscriptions/listen` as a client (MCP 2026-07-28): a connection in that era listens to its
 * server, so a change there reaches the host without any polling — the servers here hint that
 * their lists stay fresh for an hour (`v2-changing-server.mjs`, built with the official SDK v2)
 * or 30 s (`toolcell serve`), and each change is seen long before the hint would re-list.
 * Resource subscriptions (the host's, or a gateway client's through serve) become the stream's
 * `resourceSubscriptions`. A stream that ends (the server closes it; a proxy cuts it) is opened
 * again, and closing the host leaves no open request and no timer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ToolHost } from '../../src/host/tool-host.ts';
import type { McplConnection } from '../../src/mcpl/connection.ts';
import type { WireFrame } from '../../src/mcpl/transports/types.ts';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { servingUrl } from '../helpers/serve-url.ts';

const FIXTURE = join(REPO_ROOT, 'test', 'mcpl', 'fixtures', 'v2-changing-server.mjs');
const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const Passthrough = z.object({}).passthrough();

function newHost(): ToolHost {
  return new ToolHost({ logger: pino({ level: 'silent' }) });
}

/** Resolves once `connection` announces a listing that has `name`; rejects after `ms`. */
function toolAppears(connection: McplConnection, name: string, ms = 25_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} was not heard of within ${ms} ms`)), ms);
    const seen = (tools: { name: string }[]) => {
      if (!tools.some((t) => t.name === name)) return;
      clearTimeout(timer);
      connection.off('tools', seen);
      resolve();
    };
    connection.on('tools', seen);
  });
}

/** Resolves when `predicate` holds, checked on each wire frame; rejects after `ms`. */
function wireSees(frames: WireFrame[], subscribe: (f: (frame: WireFrame) => void) => void, predicate: (frames: WireFrame[]) => boolean, label: string, ms = 25_000): Promise<void> {
  if (predicate(frames)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label}: not seen within ${ms} ms`)), ms);
    subscribe(() => {
      if (!predicate(frames)) return;
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A wire log whose frames can be awaited. */
function wireLog(): { frames: WireFrame[]; log: (f: WireFrame) => void; until: (p: (frames: WireFrame[]) => boolean, label: string) => Promise<void> } {
  const frames: WireFrame[] = [];
  const watchers = new Set<(f: WireFrame) => void>();
  return {
    frames,
    log: (f) => {
      frames.push(f);
      for (const w of watchers) w(f);
    },
    until: (p, label) => wireSees(frames, (w) => void watchers.add(w), p, label),
  };
}

const listensOut = (frames: WireFrame[]) => frames.filter((f) => f.direction === 'out' && (f.message as { method?: string }).method === 'subscriptions/listen');
const acks = (frames: WireFrame[]) => frames.filter((f) => f.direction === 'in' && (f.message as { method?: string }).method === 'notifications/subscriptions/acknowledged');

test('listen (SDK v2 server, stdio): a tool added on the server reaches the host at once, though its listing hint says an hour', { timeout: 120_000 }, async () => {
  const host = newHost();
  const wire = wireLog();
  try {
    const connection = await host.connectServer({ id: 'v2', command: process.execPath, args: [FIXTURE], protocolEra: 'auto', wireLog: wire.log });
    const hintedUntil = connection.toolsFreshUntil!;
    assert.ok(hintedUntil - Date.now() > 30 * 60_000, 'the listing is fresh for an hour by its hint: no re-list on a timer');
    const listen = listensOut(wire.frames);
    assert.equal(listen.length, 1);
    assert.deepEqual((listen[0]!.message as any).params.notifications, { toolsListChanged: true, resourcesListChanged: true });
    assert.equal((listen[0]!.message as any).params._meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
    assert.equal(connection.listenStatus?.listening, true);

    const heard = toolAppears(connection, 'extra_1');
    const added = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'v2--add_tool', input: {} });
    assert.equal(added.status, 'completed');
    await heard;
    assert.ok(Date.now() < hintedUntil, 'heard before the hint would have re-listed');
    assert.ok(host.listTools().some((t) => t.name === 'v2--extra_1'));
    const changed = wire.frames.find((f) => f.direction === 'in' && (f.message as any).method === 'notifications/tools/list_changed');
    assert.equal((changed!.message as any).params._meta[SUBSCRIPTION_ID], (listen[0]!.message as any).id, 'the change came on the listen stream');
  } finally {
    await host.close();
  }
});

test('listen (SDK v2 server, stdio): resources/subscribe becomes the stream\'s resourceSubscriptions, and the update reaches the host untagged', { timeout: 120_000 }, async () => {
  const host = newHost();
  const wire = wireLog();
  const updates: unknown[] = [];
  host.on('server-notification', ({ notification }) => {
    if (notification.method === 'notifications/resources/updated') updates.push(notification.params);
  });
  try {
    const connection = await host.connectServer({ id: 'v2', command: process.execPath, args: [FIXTURE], protocolEra: 'auto', wireLog: wire.log });
    assert.deepEqual(await connection.sendRequest('resources/subscribe', { uri: 'note://a' }, Passthrough), {});
    assert.ok(!wire.frames.some((f) => f.direction === 'out' && (f.message as any).method === 'resources/subscribe'), 'the 2026 era has no resources/subscribe on the wire');
    const listens = listensOut(wire.frames);
    assert.equal(listens.length, 2, 'a new stream with the URI replaced the first');
    assert.deepEqual((listens[1]!.message as any).params.notifications.resourceSubscriptions, ['note://a']);
    assert.deepEqual(connection.listenStatus?.uris, ['note://a']);
    assert.equal(connection.listenStatus?.subscriptionId, (listens[1]!.message as any).id);
    assert.ok(wire.frames.some((f) => f.direction === 'out' && (f.message as any).method === 'notifications/cancelled' && (f.message as any).params.requestId === (listens[0]!.message as any).id), 'the first stream is cancelled once the second is acknowledged');

    const touched = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'v2--touch', input: { text: 'second' } });
    assert.equal(touched.status, 'completed');
    await wire.until(() => updates.length > 0, 'resources/updated');
    assert.deepEqual(updates, [{ uri: 'note://a' }], 'once, and without the stream\'s subscription tag');

    // Unsubscribing opens a stream without the URI: a later update is not heard.
    assert.deepEqual(await connection.sendRequest('resources/unsubscribe', { uri: 'note://a' }, Passthrough), {});
    await wire.until((frames) => acks(frames).length === 3, 'the stream without the URI acknowledged');
    assert.deepEqual(connection.listenStatus?.uris, []);
    await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'v2--touch', input: { text: 'third' } });
    // A later change that is heard orders the check: had the update come, it came before.
    const heard = toolAppears(connection, 'extra_1');
    await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'v2--add_tool', input: {} });
    await heard;
    assert.equal(updates.length, 1, 'no update after unsubscribing');
  } finally {
    await host.close();
  }
});

test('listen (SDK v2 server, stdio): a stream the server ends is opened again, the listing is fetched once to catch up, and later changes are heard', { timeout: 120_000 }, async () => {
  const host = newHost();
  const wire = wireLog();
  try {
    const connection = await host.connectServer({ id: 'v2', command: process.execPath, args: [FIXTURE], protocolEra: 'auto', wireLog: wire.log });
    const first = (listensOut(wire.frames)[0]!.message as any).id;
    const lists = () => wire.frames.filter((f) => f.direction === 'out' && (f.message as any).method === 'tools/list').length;
    const listsBefore = lists();
    await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'v2--end_listens', input: {} });
    await wire.until((frames) => acks(frames).length === 2, 'a second stream acknowledged');
    const second = (listensOut(wire.frames)[1]!.message as any).id;
    assert.notEqual(second, first);
    assert.equal(connection.listenStatus?.subscriptionId, second);
    await wire.until(() => lists() === listsBefore + 1, 'the catch-up re-list');

    const heard = toolAppears(connection, 'extra_1');
    await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'v2--add_tool', input: {} });
    await heard;
  } finally {
    await host.close();
  }
});

/** Serve as a process over HTTP, in front of the changing SDK v2 server; the caller kills it. */
async function startServe(provider: Record<string, unknown> = {}): Promise<{ url: URL; child: ChildProcess }> {
  const dir = scratchDir();
  const config = join(dir, 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'v2', command: process.execPath, args: [FIXTURE], ...provider }], codeExecution: false }));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', `--config=${config}`, '--http', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  return { url: new URL(await servingUrl(child)), child };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/**
 * A proxy in front of `target` (as a load balancer would be) that can cut the response streams
 * of `subscriptions/listen` POSTs, and counts those open.
 */
async function cuttingProxy(target: URL, refuse = false): Promise<{ url: string; listens: number; open: () => number; cut: () => void; closed: () => Promise<void>; close: () => Promise<void> }> {
  const open = new Set<ServerResponse>();
  let listens = 0;
  let drained: (() => void) | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (refuse && body.includes('"subscriptions/listen"')) {
        // As a 2026 server without the method answers it (HTTP 404, JSON-RPC -32601).
        listens += 1;
        const { id } = JSON.parse(body.toString()) as { id: unknown };
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found: subscriptions/listen' } }));
        return;
      }
      const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      if (body.includes('"subscriptions/listen"')) {
        listens += 1;
        open.add(res);
        res.on('close', () => {
          open.delete(res);
          upstream.destroy();
          if (open.size === 0) drained?.();
        });
      }
      upstream.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    get listens() {
      return listens;
    },
    open: () => open.size,
    cut: () => {
      for (const res of open) res.destroy();
    },
    closed: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (drained = resolve))),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

test('listen over HTTP (toolcell serve in front of a changing server): a change is heard on the stream; a stream a proxy cuts is opened again; close ends it', { timeout: 180_000 }, async () => {
  // Shared: the tool call and the listen stream are separate 2026 requests, so they reach one provider process only on a shared upstream session.
  const serve = await startServe({ upstreamSessions: { mode: 'shared' } });
  const proxy = await cuttingProxy(serve.url);
  const host = newHost();
  const wire = wireLog();
  let closed = false;
  try {
    const connection = await host.connectServer({ id: 's', url: proxy.url, protocolEra: 'auto', wireLog: wire.log });
    await wire.until((frames) => acks(frames).length === 1, 'the stream acknowledged');
    assert.equal(proxy.open(), 1, 'one listen stream is open');
    const hintedUntil = connection.toolsFreshUntil!;

    const heard = toolAppears(connection, 'v2--extra_1');
    await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 's--v2--add_tool', input: {} });
    await heard;
    assert.ok(Date.now() < hintedUntil, 'heard before serve\'s hint would have re-listed');

    // The proxy cuts the stream: the connection stays up, and listens again.
    proxy.cut();
    await wire.until((frames) => acks(frames).length === 2, 'a second stream acknowledged after the cut');
    assert.equal(connection.isConnected, true, 'a cut listen stream is not a lost server');
    assert.equal(proxy.listens, 2);
    const again = toolAppears(connection, 'v2--extra_2');
    await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 's--v2--add_tool', input: {} });
    await again;

    await host.close();
    closed = true;
    await proxy.closed();
    assert.equal(proxy.open(), 0, 'closing the host ended its listen request');
  } finally {
    if (!closed) await host.close();
    await proxy.close();
    await stopChild(serve.child);
  }
});

test('listen over HTTP refused by the server (404, -32601): asked once, a diagnostic, and the connection goes on', { timeout: 180_000 }, async () => {
  const serve = await startServe({ upstreamSessions: { mode: 'shared' } });
  const proxy = await cuttingProxy(serve.url, true);
  const host = newHost();
  try {
    const refused = new Promise<void>((resolve) =>
      host.on('diagnostic', (d: { code: string }) => {
        if (d.code === 'listen-refused') resolve();
      }),
    );
    const connection = await host.connectServer({ id: 's', url: proxy.url, protocolEra: 'auto' });
    await refused;
    assert.equal(connection.isConnected, true, 'a refused listen is not a lost server');
    assert.equal(connection.listenStatus?.listening, false);
    assert.equal(connection.listenStatus?.retrying, false, 'not asked again');
    const call = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 's--v2--touch', input: { text: 'still here' } });
    assert.equal(call.status, 'completed');
    assert.equal(proxy.listens, 1);
  } finally {
    await host.close();
    await proxy.close();
    await stopChild(serve.child);
  }
});

test('gateway: a serve client\'s resource subscription reaches a 2026 provider as its listen stream\'s resourceSubscriptions, and the update comes back to that client', { timeout: 180_000 }, async () => {
  const dir = scratchDir();
  const config = join(dir, 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'v2', command: process.execPath, args: [FIXTURE], protocolEra: 'auto' }], codeExecution: false }));
  const client = new Client({ name: 'gateway-client', version: '1.0.0' });
  let toolsChanged: (() => void) | undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => toolsChanged?.());
  const updates: string[] = [];
  let resolveUpdate: (() => void) | undefined;
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
    resolveUpdate?.();
  });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'ignore' }));
  try {
    assert.ok(client.getServerCapabilities()?.resources?.subscribe, 'serve offers subscriptions (its provider does)');
    const { resources } = await client.listResources();
    const note = resources.find((r) => r.uri === 'note://a');
    assert.ok(note, JSON.stringify(resources));
    await client.subscribeResource({ uri: 'note://a' });
    const updated = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no resources/updated within 25 s')), 25_000);
      resolveUpdate = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    const touched = await client.callTool({ name: 'v2--touch', arguments: { text: 'from the gateway' } });
    assert.equal((touched.content as { text: string }[])[0]!.text, 'touched');
    await updated;
    assert.deepEqual(updates, ['note://a']);
    const read = await client.readResource({ uri: 'note://a' });
    assert.equal((read.contents[0] as { text: string }).text, 'from the gateway');

    // A tool added on the 2026 provider: serve hears it on its listen stream and tells its client.
    const changed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no tools/list_changed within 25 s')), 25_000);
      toolsChanged = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    await client.callTool({ name: 'v2--add_tool', arguments: {} });
    await changed;
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'v2--extra_1'));
  } finally {
    await client.close();
  }
});

test('close while a re-listen waits out its back-off leaves no timer: the process exits by itself', { timeout: 90_000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./listen-close.child.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let closedAt = 0;
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk;
    if (out.includes('closed') && closedAt === 0) closedAt = Date.now();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(out, 'retrying\nclosed\n');
  assert.equal(code, 0);
  // Left running, the re-listen would fire and wait up to 30 s for its acknowledgement, then back off further.
  assert.ok(Date.now() - closedAt < 20_000, `exited ${Date.now() - closedAt} ms after close`);
});
