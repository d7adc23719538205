/**
 * A value cut to fit the model's result cap stays reachable: the cut result names a handle and
 * the one `result_page` call that reads the rest; the pages, in order, are the value's JSON
 * text exactly (a 2 MB value end to end). Tenants: another conversation cannot read the handle
 * (the same answer as a handle that never existed), and one conversation's values never evict
 * another's. Bounds: expiry, the per-conversation and total byte caps (result-pages.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import { ResultPages } from '../../src/code-execution/result-pages.ts';
import type { ToolResult } from '../../src/host/types.ts';

interface CutEnvelope {
  ok: boolean;
  value: unknown;
  truncated?: { value?: { chars: number; handle?: string; more?: string; cuts?: unknown[] } };
}

const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ id: i, tag, title: `row ${i} — naïve café ✓ 😀`, body: 'lorem ipsum dolor '.repeat(3) }));

async function setup(options: Parameters<typeof registerCodeExecution>[1] = {}): Promise<{ host: ToolHost; ce: CodeExecution; big: unknown; run: (conversationId: string, code: string) => Promise<ToolResult>; page: (conversationId: string, input: Record<string, unknown>) => Promise<ToolResult> }> {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const big = { total: 17_000, rows: rows(17_000, 'a') };
  host.registerTool({ name: 'big', description: 'A big result', inputSchema: { type: 'object' }, handler: async () => textResult(JSON.stringify(big)) });
  const ce = registerCodeExecution(host, { languages: ['javascript'], ...options });
  const call = async (conversationId: string, name: string, input: Record<string, unknown>) => {
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId }), name, input });
    assert.ok(outcome.result, `${name} answered`);
    return outcome.result;
  };
  return { host, ce, big, run: (c, code) => call(c, 'code_execution', { code }), page: (c, input) => call(c, 'result_page', input) };
}

const envelopeOf = (result: ToolResult): CutEnvelope => JSON.parse((result.content[0] as unknown as { text: string }).text) as CutEnvelope;
const textOf = (result: ToolResult, i: number): string => (result.content[i] as unknown as { text: string }).text;

test('another conversation cannot read a cut value\'s handle: the same answer as a handle that never existed', async () => {
  const { host, ce, run, page } = await setup();
  try {
    const env = envelopeOf(await run('owner', 'return await tools.big({})'));
    const handle = env.truncated?.value?.handle;
    assert.ok(handle, 'the cut result names a handle');
    const own = await page('owner', { handle });
    assert.notEqual(own.isError, true, 'the owner reads it');
    const stolen = await page('intruder', { handle });
    assert.equal(stolen.isError, true);
    const unknown = await page('intruder', { handle: 'rv_neverMadeNeverMade' });
    assert.deepEqual(stolen.content, unknown.content, 'no oracle: a foreign handle reads like an unknown one');
    assert.doesNotMatch(JSON.stringify(stolen), /row 0/);
    // Once the owner's conversation ends its values are gone too.
    await host.endConversation('owner');
    assert.equal((await page('owner', { handle })).isError, true);
  } finally {
    await ce.close();
    await host.close();
  }
});

test('a 2 MB value cut to the cap, then paged in full with result_page: the pages are its JSON text exactly', async () => {
  const { host, ce, big, run, page } = await setup();
  try {
    const cut = await run('pager', 'return await tools.big({})');
    const text = textOf(cut, 0);
    assert.ok(text.length <= 64 * 1024, `the cut result is under the cap: ${text.length}`);
    const env = envelopeOf(cut);
    const full = JSON.stringify(big);
    assert.ok(full.length > 2_000_000, String(full.length));
    assert.equal(env.truncated?.value?.chars, full.length);
    assert.ok(env.truncated?.value?.cuts?.length, 'the value keeps its beginning, cuts listed');
    const handle = env.truncated!.value!.handle!;
    // The one line the model needs: the call to make, with its handle.
    assert.match(env.truncated!.value!.more!, new RegExp(`result_page\\(\\{ "handle": "${handle}" \\}\\)`));
    assert.equal(host.listTools().some((t) => t.name === 'result_page'), true);

    let offset: number | undefined = 0;
    let joined = '';
    let pages = 0;
    while (offset !== undefined) {
      const result = await page('pager', { handle, offset });
      assert.notEqual(result.isError, true, textOf(result, 0));
      const header = JSON.parse(textOf(result, 0)) as { offset: number; chars: number; next?: number };
      assert.equal(header.offset, offset);
      assert.equal(header.chars, full.length);
      const body = textOf(result, 1);
      // Each page fits the model's cap on its own.
      assert.ok(textOf(result, 0).length + body.length <= 64 * 1024, String(body.length));
      joined += body;
      offset = header.next;
      pages++;
    }
    assert.equal(joined, full);
    assert.deepEqual(JSON.parse(joined), big);
    assert.ok(pages >= 32, `pages: ${pages}`);
    // A script cannot call it (model-only): it already has the whole value.
    const fromScript = envelopeOf(await run('pager', `return await tools.result_page({ handle: ${JSON.stringify(handle)} })`));
    assert.equal(fromScript.ok, false);
  } finally {
    await ce.close();
    await host.close();
  }
});

test('byte caps: a value over a conversation\'s share is not kept (the result says so); a full store refuses new values and evicts no other conversation\'s', async () => {
  const full = JSON.stringify({ total: 17_000, rows: rows(17_000, 'a') }).length * 2;
  {
    const { host, ce, run } = await setup({ resultPages: { perConversationBytes: full - 1 } });
    try {
      const env = envelopeOf(await run('small', 'return await tools.big({})'));
      assert.equal(env.truncated?.value?.handle, undefined);
      assert.match(env.truncated!.value!.more!, /not kept: the value is larger than what a conversation may keep/);
    } finally {
      await ce.close();
      await host.close();
    }
  }
  {
    // Room for one value in all: the first conversation's is kept; the second's is refused and the first's stays readable.
    const { host, ce, run, page } = await setup({ resultPages: { totalBytes: full + 10 } });
    try {
      const first = envelopeOf(await run('first', 'return await tools.big({})')).truncated!.value!.handle!;
      const second = envelopeOf(await run('second', 'return await tools.big({})'));
      assert.equal(second.truncated?.value?.handle, undefined);
      assert.match(second.truncated!.value!.more!, /not kept: the host keeps too many cut values/);
      assert.notEqual((await page('first', { handle: first })).isError, true);
      // The first conversation's own next value replaces its older one (oldest first, its own).
      const again = envelopeOf(await run('first', 'return await tools.big({})')).truncated!.value!.handle!;
      assert.equal((await page('first', { handle: first })).isError, true);
      assert.notEqual((await page('first', { handle: again })).isError, true);
    } finally {
      await ce.close();
      await host.close();
    }
  }
});

test('the store on its own: expiry by its clock, caps in bytes, pages never split a surrogate pair, bad input refused', async () => {
  let now = 1_000;
  const store = new ResultPages({ perConversationBytes: 100, totalBytes: 160, ttlMs: 5_000 }, () => now);
  const a = store.keep('c1', '"' + 'x'.repeat(38) + '"');
  assert.ok('handle' in a);
  assert.equal(store.heldBytes(), 80);
  assert.equal(store.read('c1', a.handle, 0, 10)?.next, 10);
  now += 4_999;
  assert.ok(store.read('c1', a.handle, 0, 10), 'readable until its time is up');
  now += 1;
  assert.equal(store.read('c1', a.handle, 0, 10), undefined, 'expired');
  assert.equal(store.heldBytes(), 0, 'an expired value is dropped, its bytes given back');
  assert.deepEqual(store.keep('c1', 'y'.repeat(51)), { refused: 'the value is larger than what a conversation may keep (100 bytes)' });
  const b = store.keep('c1', 'b'.repeat(40));
  const c = store.keep('c2', 'c'.repeat(40));
  assert.ok('handle' in b && 'handle' in c);
  assert.ok('refused' in store.keep('c3', 'd'.repeat(1)), 'total cap: 160 bytes held');
  const emoji = store.keep('c3', 'a😀b'.repeat(1));
  assert.ok('refused' in emoji);
  store.endConversation('c2');
  const e = store.keep('c3', 'a😀b');
  assert.ok('handle' in e);
  assert.deepEqual(store.read('c3', e.handle, 0, 2), { text: 'a', offset: 0, chars: 4, next: 1 });
  assert.deepEqual(store.read('c3', e.handle, 1, 2), { text: '😀', offset: 1, chars: 4, next: 3 });

  const { host, ce, page } = await setup();
  try {
    assert.equal((await page('x', { handle: 7 })).isError, true);
    const refused = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'x' }), name: 'result_page', input: { handle: 'rv_x', offset: -1 } });
    assert.equal(refused.result?.isError ?? refused.refusal !== undefined, true);
  } finally {
    await ce.close();
    await host.close();
  }
  const off = new ToolHost({ logger: pino({ level: 'silent' }) });
  const offCe = registerCodeExecution(off, { languages: ['javascript'], resultPages: false });
  try {
    assert.equal(off.listTools().some((t) => t.name === 'result_page'), false, 'resultPages: false registers no tool');
    assert.throws(() => registerCodeExecution(new ToolHost({ logger: pino({ level: 'silent' }) }), { resultPages: { ttlMs: 0 } }), /resultPages/);
  } finally {
    await offCe.close();
    await off.close();
  }
});
