/**
 * engines/quickjs/start-image.mjs: copies of a VM's memory share one buffer; a copy a run holds
 * (pinned) is never overwritten, and the image a move sends is the memory as it was copied.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PARK_BLOCK } from '../../../src/runtime/js/engines/quickjs/memory-image.mjs';
import { startImages } from '../../../src/runtime/js/engines/quickjs/start-image.mjs';

/** What start-image reads of a VM: its memory and the pointers restoring it needs. */
function fakeVm(blocks: number, fill: number) {
  const memory = { buffer: new ArrayBuffer(blocks * PARK_BLOCK) };
  new Uint8Array(memory.buffer).fill(fill, 0, PARK_BLOCK); // the first block holds something, the rest are zeros
  return { memory, __stack_pointer: { value: 100 + fill }, qjs_get_runtime_ptr: () => 200 + fill, qjs_get_context_ptr: () => 300 + fill };
}

type Moved = { size: number; blocks: Int32Array; data: Uint8Array; stackPointer: number; catalog: unknown };

test('a later copy invalidates the last one unless a run holds it, and a held copy keeps its bytes', () => {
  const images = startImages();
  const vmA = fakeVm(4, 1);
  const a = images.take(vmA, 'catalog-a');
  // The VM changes after the copy: the image keeps what it was.
  new Uint8Array(vmA.memory.buffer).fill(9, 0, PARK_BLOCK);
  const movedA = a.forMove() as Moved;
  assert.equal(movedA.size, 4 * PARK_BLOCK);
  assert.deepEqual([...movedA.blocks], [0], 'only the block that is not zero');
  assert.equal(movedA.data[0], 1);
  assert.equal(movedA.stackPointer, 101);
  assert.equal(movedA.catalog, 'catalog-a');

  const b = images.take(fakeVm(4, 2), 'catalog-b');
  assert.equal(a.valid, false, "b's copy took a's buffer");
  assert.equal(b.valid, true);

  b.pinned = true; // a run started from b and may move
  const c = images.take(fakeVm(8, 3), 'catalog-c');
  assert.equal(b.valid, true, 'a held copy is not overwritten');
  assert.equal((b.forMove() as Moved).data[0], 2);
  assert.equal((c.forMove() as Moved).data[0], 3);

  b.pinned = false;
  const d = images.take(fakeVm(2, 4), 'catalog-d');
  assert.equal(b.valid, false, 'once the run ended, the buffer is reused');
  assert.equal(c.valid, true, 'c had a buffer of its own');
  assert.equal((d.forMove() as Moved).size, 2 * PARK_BLOCK);
});
