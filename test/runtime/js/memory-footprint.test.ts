/**
 * Memory in bytes (issue 40, item 4): a QuickJS VM's whole WebAssembly memory counts against its
 * run's `heapMb`, fragmentation included, not only what QuickJS's allocator counts as live.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { errorOf, valueOf } from './helpers.ts';
import { fragmenting } from './fragmenting.ts';

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
