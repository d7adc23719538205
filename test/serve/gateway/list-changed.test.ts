/**
 * `list_changed` is coalesced per client: B makes a provider send 3,000
 * `notifications/tools/list_changed` on serve's shared connection; A, idle but for its own
 * calls, hears of it a few times (at most one per LIST_CHANGED_MIN_GAP_MS, plus the last), and
 * its calls (to another provider) stay fast meanwhile. Real processes: serve --http, the SDK's gateway provider.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT } from '../../helpers/peers.ts';
import { LIST_CHANGED_MIN_GAP_MS } from '../../../src/serve/gateway/list-changed.ts';
import { httpClient, serveHttp, textOf, until } from './two-clients.ts';

const PROVIDER = join(REPO_ROOT, 'test', 'serve', 'gateway', 'provider.ts');
const CHANGES = 3_000;

test(`B causing ${CHANGES} tools/list_changed sends A a few, coalesced, and does not slow A's calls`, async () => {
  const provider = { id: 'p', command: process.execPath, args: ['--import', 'tsx', PROVIDER], cwd: REPO_ROOT, prefixTools: false, required: true, upstreamSessions: { mode: 'shared' } };
  // A's calls go to another provider: what is measured is what B's changes cost A through serve,
  // not the wait behind the churning provider's own message loop.
  const other = { ...provider, id: 'q', env: { GATEWAY_PROVIDER_NAME: 'Q' } };
  const serve = await serveHttp({ servers: [provider, other], codeExecution: false });
  const a = await httpClient(serve.url, 'alice');
  const b = await httpClient(serve.url, 'bob');
  try {
    let aHeard = 0;
    a.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (aHeard += 1));
    const timed = async (): Promise<number> => {
      const started = performance.now();
      const result = await a.client.callTool({ name: 'metaQ', arguments: {} });
      assert.equal(result.isError ?? false, false, JSON.stringify(result));
      return performance.now() - started;
    };
    const before: number[] = [];
    for (let i = 0; i < 10; i++) before.push(await timed());

    const started = performance.now();
    const churn = b.client.callTool({ name: 'churn', arguments: { count: CHANGES } });
    const during: number[] = [];
    let churned = false;
    void churn.then(() => (churned = true));
    while (!churned) during.push(await timed());
    assert.match(textOf(await churn), new RegExp(`churned ${CHANGES}`));
    // The last change is still told (once the gap since the one before has passed).
    await until('alice to hear of the last change', () => aHeard > 0);
    const elapsed = performance.now() - started + LIST_CHANGED_MIN_GAP_MS;

    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    console.log(`alice heard ${aHeard} of ${CHANGES} list changes in ${Math.round(elapsed)} ms; her call: median ${median(before).toFixed(1)} ms before, ${median(during).toFixed(1)} ms during (${during.length} calls)`);
    // At most one per gap over the time it took, and one more for the last change.
    assert.ok(aHeard <= Math.ceil(elapsed / LIST_CHANGED_MIN_GAP_MS) + 1, `alice heard ${aHeard} list changes in ${Math.round(elapsed)} ms`);
    assert.ok(aHeard < CHANGES / 10, `alice heard ${aHeard}`);
    // Generous (the machine is shared): her calls are not held up behind bob's changes.
    assert.ok(median(during) < Math.max(2_000, 10 * median(before)), `median ${median(during)} ms during vs ${median(before)} ms before`);
  } finally {
    await a.end();
    await b.end();
    await serve.stop();
  }
});
