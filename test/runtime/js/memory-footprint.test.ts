/**
 * Memory in bytes (issue 40, item 4): a QuickJS VM's whole WebAssembly memory counts against its
 * run's `heapMb`, fragmentation included, not only what QuickJS's allocator counts as live.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { errorOf, valueOf } from './helpers.ts';

/**
 * Fragments the VM's heap: each round allocates blocks of one size, keeps one in eight and asks
 * for blocks eight times larger next, which never fit the holes left. About `mb` MiB are
 * allocated in all, an eighth of it live: under heapMb 32 the allocator sees ~14 MiB live while
 * the VM's memory grows past 100 MiB (measured on the code before this bound).
 */
export function fragmenting(mb: number): string {
  return `
const keep = [];
let size = 512;
for (let round = 0; round < 5; round++) {
  const n = Math.max(8, Math.floor(${mb} * 1048576 / 5 / size));
  const batch = [];
  for (let i = 0; i < n; i++) batch.push('x'.repeat(size));
  for (let i = 0; i < n; i += 8) keep.push(batch[i]);
  size *= 8;
}
globalThis.kept = keep;
return keep.reduce((a, b) => a + b.length, 0);`;
}

for (const threads of [true, false]) {
  const runtime = new JsRuntime({ quickjsThreads: threads, pool: { maxProcesses: 1 } });
  after(() => runtime.close());
  const where = threads ? 'threads' : 'processes';

  test(`${where}: a script that fragments its heap ends out of memory once its VM's memory passes heapMb, and its VM is discarded`, async () => {
    const c = { tools: [], conversation: `frag-${where}`, limits: { heapMb: 32 } };
    valueOf(await runtime.execute('mark = 1; return 1', c));
    const error = errorOf(await runtime.execute(fragmenting(100), c));
    assert.equal(error.kind, 'sandbox');
    assert.match(error.message, /ran out of memory \(heap limit 32 MiB\): its VM's memory grew to \d+ MiB, fragmentation included/);
    // Nothing of that VM is kept: the next run starts fresh and says so.
    const next = await runtime.execute('return typeof mark', c);
    assert.deepEqual([valueOf(next), next.session], ['undefined', { fresh: true }]);
  });

  test(`${where}: the same amount live without fragmentation stays within heapMb`, async () => {
    // 14 MiB live, in blocks of one size: the memory holds little more than what is live.
    const value = valueOf(await runtime.execute("const k = []; for (let i = 0; i < 14; i++) k.push('x'.repeat(1048576)); return k.length", {
      tools: [], conversation: `plain-${where}`, limits: { heapMb: 32 },
    }));
    assert.equal(value, 14);
  });
}
