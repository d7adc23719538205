/**
 * Cache hints (MCP 2026-07-28, `ttlMs` on list results) through `toolcell serve --http` (a real
 * process) in front of a real 2026 provider built on the official SDK v2
 * (test/serve/fixtures/v2-growing-provider.mjs), which tells no one its tool list changed
 * unless they listen — and serve, as its client, does not:
 * The provider is `shared` (one process behind serve's own connection, whose listing clients
 * see), so the tool a client's call adds is in the process serve lists.
 * - serve's listing of the provider honours the provider's hint: once stale it is fetched
 *   again, so a tool the provider added appears in serve's `tools/list`, and a 2026 client
 *   listening for `toolsListChanged` is told;
 * - a re-list that finds nothing new tells no one;
 * - serve's own `tools/list` hint is truthful: never longer than until serve's next re-list;
 *   its `resources/list` and `prompts/list` (fetched from the provider per request) carry the
 *   provider's hint.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/peers.ts';
import { serveHttp, until } from './gateway/two-clients.ts';
import { listen, post } from './modern/raw-2026.ts';
import { MIN_LISTING_REFRESH_MS } from '../../src/mcpl/listing-expiry.ts';

/** Asks `probe` every 200 ms until `ok` holds; rejects naming `what` after `timeoutMs`. */
async function eventually<T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const PROVIDER = join(REPO_ROOT, 'test', 'serve', 'fixtures', 'v2-growing-provider.mjs');

test("serve re-lists a 2026 provider when its tools/list hint expires, tells listening clients of a change, and hints no longer than that", { timeout: 180_000 }, async () => {
  const serve = await serveHttp({
    servers: [{ id: 'v2', command: process.execPath, args: [PROVIDER], cwd: REPO_ROOT, protocolEra: 'auto', required: true, env: { V2_TOOLS_TTL_MS: '500', V2_LISTS_TTL_MS: '1234' }, upstreamSessions: { mode: 'shared' } }],
    codeExecution: false,
  });
  const stream = await listen(serve.url, { toolsListChanged: true });
  try {
    assert.deepEqual((await stream.acknowledged).params.notifications, { toolsListChanged: true });
    const list = async () => {
      const answer = await post(serve.url.href, 'tools/list', {});
      const result = answer.body.result;
      assert.ok(result, JSON.stringify(answer.body));
      return { names: result.tools.map((t: { name: string }) => t.name).sort(), ttlMs: result.ttlMs as number, at: Date.now() };
    };
    const first = await list();
    assert.deepEqual(first.names, ['v2--grow']);
    // The provider said 500 ms; serve re-lists no sooner than its floor, and says so.
    assert.ok(Number.isInteger(first.ttlMs) && first.ttlMs >= 0 && first.ttlMs <= MIN_LISTING_REFRESH_MS, `serve's hint ${first.ttlMs} ms is within its next re-list`);

    // A re-list happened (the hint's due time moved on) with nothing new. Had it been announced, the
    // announcement was written on the stream before that tools/list was even asked, so before the one below.
    // Resources and prompts: serve lists them from the provider on each request, so its hint is the provider's.
    for (const [method, key] of [['resources/list', 'resources'], ['prompts/list', 'prompts']] as const) {
      const listed = (await post(serve.url.href, method, {})).body.result;
      assert.equal(listed[key].length, 1, JSON.stringify(listed));
      assert.equal(listed.ttlMs, 1_234, `${method}: the provider's hint, not serve's 30 s`);
    }

    const firstDue = first.at + first.ttlMs;
    const later = await eventually('serve to re-list the provider once its hint expired', list, (l) => l.at + l.ttlMs > firstDue + 100);
    assert.deepEqual(later.names, ['v2--grow']);

    const grew = await post(serve.url.href, 'tools/call', { name: 'v2--grow', arguments: {} });
    assert.equal(grew.body.result?.content?.[0]?.text, 'grew', JSON.stringify(grew.body));
    await eventually("serve's listing to show the provider's new tool", list, (l) => l.names.includes('v2--grown'));
    const changes = () => stream.messages.filter((m) => m.method === 'notifications/tools/list_changed');
    await until('the listening client to be told the tool list changed', () => changes().length > 0);
    assert.equal(changes().length, 1, `only the change is announced, no unchanged re-list: ${JSON.stringify(stream.messages)}`);
    assert.deepEqual(changes()[0].params, { _meta: { 'io.modelcontextprotocol/subscriptionId': stream.id } });
  } finally {
    stream.close();
    await serve.stop();
  }
});
