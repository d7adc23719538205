/**
 * `subscriptions/listen` (2026-07-28) through `toolcell serve --http` (a real process) in front
 * of the gateway test provider (a real process over stdio), with raw HTTP requests as a client
 * of the era sends them:
 * - the acknowledgement comes first and honours only what serve can deliver: the list changes
 *   asked for, and the resources a provider took (one it refused is left out);
 * - a resource update reaches only the stream that subscribed to that URI, tagged with that
 *   stream's id — client B never receives what was meant for client A — on a shared provider
 *   connection, and with a per-client provider each stream subscribes in its own upstream
 *   session (another client's session does not hold it);
 * - malformed filters are typed -32602 errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO_ROOT } from '../../helpers/peers.ts';
import { serveHttp, until } from '../gateway/two-clients.ts';
import { listen, post, type Stream } from './raw-2026.ts';

const PROVIDER = join(REPO_ROOT, 'test', 'serve', 'gateway', 'provider.ts');
const provider = (mode: 'shared' | 'per-client') => ({
  id: 'p',
  command: process.execPath,
  args: ['--import', 'tsx', PROVIDER],
  cwd: REPO_ROOT,
  prefixTools: false,
  required: true,
  upstreamSessions: { mode },
});

const updates = (s: Stream) => s.messages.filter((m) => m.method === 'notifications/resources/updated').map((m) => m.params.uri);

test('subscriptions/listen: acknowledged first with what serve honours; each resource update reaches only the stream that subscribed to it', { timeout: 120_000 }, async () => {
  const serve = await serveHttp({ servers: [provider('shared')], codeExecution: false });
  const streams: Stream[] = [];
  try {
    const a = await listen(serve.url, { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['test://watched', 'other://nope'] });
    streams.push(a);
    const b = await listen(serve.url, { resourcesListChanged: true, resourceSubscriptions: ['test://static'] });
    streams.push(b);
    const ackA = await a.acknowledged;
    assert.equal(ackA.method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual(ackA.params.notifications, { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['test://watched'] }, 'a URI the provider refused is left out');
    assert.equal(ackA.params._meta['io.modelcontextprotocol/subscriptionId'], a.id);
    const ackB = await b.acknowledged;
    assert.deepEqual(ackB.params.notifications, { resourcesListChanged: true, resourceSubscriptions: ['test://static'] });

    // The provider holds both subscriptions (on serve's shared connection).
    const touched = await post(serve.url.href, 'tools/call', { name: 'touch', arguments: {} });
    assert.match(touched.body.result.content[0].text, /subscribed: .*test:\/\/watched/, JSON.stringify(touched.body));
    await until("A's stream to hear test://watched updated", () => updates(a).includes('test://watched'));
    await post(serve.url.href, 'tools/call', { name: 'touch', arguments: { uri: 'test://static' } });
    await until("B's stream to hear test://static updated", () => updates(b).includes('test://static'));
    // B's update came after A's on the same provider connection: had A's reached B, it would be there first.
    assert.deepEqual(updates(b), ['test://static'], `B never receives A's update: ${JSON.stringify(b.messages)}`);
    await post(serve.url.href, 'tools/call', { name: 'touch', arguments: {} });
    await until("A's stream to hear test://watched again", () => updates(a).length >= 2);
    assert.deepEqual(updates(a), ['test://watched', 'test://watched'], `A never receives B's update: ${JSON.stringify(a.messages)}`);
    for (const [stream, id] of [[a, a.id], [b, b.id]] as const) {
      for (const m of stream.messages) assert.equal(m.params._meta['io.modelcontextprotocol/subscriptionId'], id, `every message carries its own stream's id: ${JSON.stringify(m)}`);
    }
    const update = a.messages.find((m) => m.method === 'notifications/resources/updated');
    assert.deepEqual(Object.keys(update.params).sort(), ['_meta', 'uri']);

    // A list change asked for: the provider adds a tool.
    await post(serve.url.href, 'tools/call', { name: 'grow', arguments: {} });
    await until("A's stream to hear the tool list changed", () => a.messages.some((m) => m.method === 'notifications/tools/list_changed'));
  } finally {
    for (const s of streams) s.close();
    await serve.stop();
  }
});

test('subscriptions/listen with a per-client provider: the stream subscribes in its own upstream session, which no other client shares', { timeout: 120_000 }, async () => {
  const serve = await serveHttp({ servers: [provider('per-client')], codeExecution: false });
  let stream: Stream | undefined;
  try {
    stream = await listen(serve.url, { resourceSubscriptions: ['test://watched'] });
    assert.deepEqual((await stream.acknowledged).params.notifications, { resourceSubscriptions: ['test://watched'] });
    await until("serve to open the stream's upstream session", () => serve.log.some((l) => /upstream session with p opened for a client/.test(l)));
    // Another request's session reaches the provider through an upstream session of its own: no subscription of the stream's in it.
    const touched = await post(serve.url.href, 'tools/call', { name: 'touch', arguments: {} });
    assert.equal(touched.body.result.content[0].text, 'subscribed: ', JSON.stringify(touched.body));
  } finally {
    stream?.close();
    await serve.stop();
  }
});

test('subscriptions/listen refuses a malformed filter with -32602, subscribing nothing', { timeout: 120_000 }, async () => {
  const serve = await serveHttp({ servers: [provider('shared')], codeExecution: false });
  try {
    for (const notifications of [{ resourceSubscriptions: 'test://watched' }, { resourceSubscriptions: [42] }, { resourceSubscriptions: Array.from({ length: 65 }, (_, i) => `test://item/${i}`) }, 'all']) {
      const refused = await post(serve.url.href, 'subscriptions/listen', { notifications });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, -32602, JSON.stringify(refused.body));
    }
    const touched = await post(serve.url.href, 'tools/call', { name: 'touch', arguments: {} });
    assert.equal(touched.body.result.content[0].text, 'subscribed: ');
  } finally {
    await serve.stop();
  }
});
