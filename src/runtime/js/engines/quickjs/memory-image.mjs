// A QuickJS VM's linear memory as an image without its all-zero blocks, and VMs restored from
// such images (engines/quickjs/main.mjs: the template every VM starts from, and sessions parked
// in the host). Most of a VM's memory is zeros: of a fresh VM's 368 blocks of 4 KiB, 266 are
// (nearly all of them its ~1 MB C stack, which scripts seldom reach). QuickJS.restore copies a
// whole memory, zeros included, which made every one of those pages resident in every VM;
// here only the blocks that hold something are written, and the others are never touched
// (but on the first VM restored in a thread, read whole to learn what a new instance holds).
import { Buffer } from 'node:buffer';

/** Granularity of an image: blocks that are all zero are left out. */
export const PARK_BLOCK = 4096;
const NO_MEMORY = new Uint8Array(0);

/** A block of zeros, compared with each block of a memory natively (a scan in JavaScript cost a thread's start ~20 ms). */
const ZERO = Buffer.alloc(PARK_BLOCK);

function nonZeroBlocks(memory) {
  const count = memory.byteLength / PARK_BLOCK;
  const kept = new Int32Array(count);
  let n = 0;
  for (let b = 0; b < count; b++) {
    if (!Buffer.from(memory.buffer, memory.byteOffset + b * PARK_BLOCK, PARK_BLOCK).equals(ZERO)) kept[n++] = b;
  }
  return kept.slice(0, n);
}

/** `memory` as { size, blocks: indexes of the blocks kept, data: those blocks in order }. */
export function compactMemory(memory) {
  const blocks = nonZeroBlocks(memory);
  const data = new Uint8Array(blocks.length * PARK_BLOCK);
  for (let i = 0; i < blocks.length; i++) data.set(memory.subarray(blocks[i] * PARK_BLOCK, (blocks[i] + 1) * PARK_BLOCK), i * PARK_BLOCK);
  return { size: memory.byteLength, blocks, data };
}

/**
 * A VM's state as an image restoreVm takes: its memory without the zero blocks (read straight
 * from the instance, not from a full copy first) and the pointers restoring needs.
 */
export function memoryImage(exports) {
  return {
    ...compactMemory(new Uint8Array(exports.memory.buffer)),
    stackPointer: exports.__stack_pointer.value,
    runtimePtr: exports.qjs_get_runtime_ptr(),
    contextPtr: exports.qjs_get_context_ptr(),
  };
}

/**
 * A function restoring a VM from an image ({ size, blocks, data } of compactMemory, with the
 * stackPointer, runtimePtr and contextPtr of the VM it was taken from), byte for byte the
 * memory QuickJS.restore would have made from the whole memory.
 */
export function imageRestorer(QuickJS, vmOptions) {
  // No extensions are loaded into any VM here. With no memory, QuickJS.restore only
  // instantiates the module and sets the pointers and limits.
  const emptyVm = ({ stackPointer, runtimePtr, contextPtr }) =>
    QuickJS.restore({ memory: NO_MEMORY, stackPointer, runtimePtr, contextPtr, extensions: [] }, vmOptions);
  /**
   * By pointers: the blocks that are not zero in a VM just made by emptyVm (its data segments,
   * and what instantiating and setting the pointers wrote). Found on the first VM restored
   * with those pointers, by reading all of its memory (reading a block of a VM's memory makes
   * it resident as surely as writing it: that first VM is as large as QuickJS.restore's).
   */
  const dirtyOfEmpty = new Map();

  return async function restoreVm(image) {
    const { size, blocks, data, stackPointer, runtimePtr, contextPtr } = image;
    const vm = await emptyVm(image);
    const exports = vm._getExports();
    const key = `${stackPointer}:${runtimePtr}:${contextPtr}`;
    let dirty = dirtyOfEmpty.get(key);
    if (dirty === undefined) {
      dirty = nonZeroBlocks(new Uint8Array(exports.memory.buffer));
      dirtyOfEmpty.set(key, dirty);
    }
    const initial = exports.memory.buffer.byteLength;
    if (size > initial) exports.memory.grow((size - initial) / 65536);
    const memory = new Uint8Array(exports.memory.buffer);
    for (let i = 0; i < blocks.length; i++) memory.set(data.subarray(i * PARK_BLOCK, (i + 1) * PARK_BLOCK), blocks[i] * PARK_BLOCK);
    // Blocks the image has as zeros: cleared only where the new VM's memory is not zero already.
    const kept = new Set(blocks);
    for (const b of dirty) if (!kept.has(b)) memory.fill(0, b * PARK_BLOCK, (b + 1) * PARK_BLOCK);
    // What QuickJS.restore did before its copy, again over the restored state.
    exports.qjs_set_runtime_and_context(runtimePtr, contextPtr);
    exports.__stack_pointer.value = stackPointer;
    QuickJS.applyLimits(vm, QuickJS.normalizeOptions(vmOptions));
    return vm;
  };
}
