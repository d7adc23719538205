/**
 * Learned result types kept in the store (issue 44 item 2, learned-persist.ts): a host learns a
 * tool's result shape and closes; a new host on the same store declares that type before any
 * call, and no value of any result is in the store or the declaration. Memory and SQLite here;
 * the stores' own shapes contract (all three, PostgreSQL included) is in test/store/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { DurableRuns } from '../../src/code-execution/durable-runs.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { SqliteStore } from '../../src/store/sqlite.ts';
import type { DurableStore } from '../../src/store/types.ts';
import { scratchDir } from '../helpers/peers.ts';

const SECRET = 'Quarterly plan ZQX-11';

function hostOn(store: DurableStore) {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({
    name: 'list_docs',
    description: 'Lists documents',
    inputSchema: { type: 'object' },
    handler: async () => textResult(JSON.stringify({ items: [{ id: 7, title: SECRET }] })),
  });
  const ce = registerCodeExecution(host, { durable: new DurableRuns(store) });
  const description = () => host.listTools().find((t) => t.name === 'code_execution')!.description;
  const run = async (code: string) => {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const out = await host.dispatch({ inferenceId, name: 'code_execution', input: { code } });
    return out.result!.structuredContent as { ok: boolean; value?: unknown };
  };
  return { host, ce, description, run, close: async () => { await ce.close(); await host.close(); } };
}

const LEARNED = /list_docs\([^)]*\): Promise<\{[^]*items\??: \{[^]*title\??: string/;

async function learnThenReopen(open: () => DurableStore, reopen: () => DurableStore) {
  const store = open();
  const first = hostOn(store);
  await first.ce.learnedLoaded;
  assert.doesNotMatch(first.description(), LEARNED, 'nothing learned yet');
  const out = await first.run('return (await tools.list_docs({})).items[0].id');
  assert.equal(out.ok, true);
  // close() saves what the run taught (the timed save would come within SHAPES_SAVE_MS).
  await first.close();
  const saved = JSON.stringify(await store.loadShapes());
  assert.match(saved, /title/);
  assert.ok(!saved.includes('ZQX') && !saved.includes('7,'), 'shapes only, no value');
  const again = reopen();
  const second = hostOn(again);
  try {
    await second.ce.learnedLoaded;
    const text = second.description();
    assert.match(text, LEARNED);
    assert.ok(!text.includes('ZQX'));
  } finally {
    await second.close();
    await again.close();
    if (again !== store) await store.close();
  }
}

test('memory store: a second host on the same store declares the learned type before any call', async () => {
  const store = new MemoryStore();
  await learnThenReopen(() => store, () => store);
});

test('sqlite store: a new host on the same file declares the learned type before any call', async () => {
  const file = join(scratchDir(), 'shapes.db');
  await learnThenReopen(() => new SqliteStore(file), () => new SqliteStore(file));
});

test('a stored shape that is not one is refused and logged; the host starts without it', async () => {
  const store = new MemoryStore();
  await store.saveShapes({ list_docs: JSON.stringify({ v: 1, results: 1, shape: { k: 'object', count: 1, props: [['ZQX secret key!', { k: 'string' }, 1]] } }) });
  const h = hostOn(store);
  try {
    await h.ce.learnedLoaded;
    assert.ok(!h.description().includes('ZQX'));
    assert.match(h.description(), /list_docs\([^)]*\): Promise<unknown>/);
  } finally {
    await h.close();
  }
});
