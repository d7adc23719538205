// Inline only: the copies of a VM's memory that a run moving off the host's thread starts again
// from (sandbox-loop.mjs takes one for the session likely to run next while the loop is idle, or
// when a run starts). A copy is taken after every run, so its cost is paid per run: into a new
// buffer, the fresh pages' faults made it 2.4–12 ms for an 8 MB session (warm `return 1` waited
// behind it), where copying into a buffer already resident takes about 1 ms. So the copies go
// into one buffer kept here, and only the copy a move sends is made compact (memory-image.mjs),
// on the move's path.
import { compactMemory } from './memory-image.mjs';

/** A buffer this many times larger than the memory it holds is given back (a large session has gone). */
const SHRINK_FACTOR = 4;

/**
 * @typedef {object} StartImage
 * @property {boolean} valid false once a later copy took its buffer
 * @property {boolean} pinned a run in progress may still move from it: no later copy takes its buffer
 * @property {() => object} forMove the image a worker thread restores (compact, with the pointers and catalog)
 */

export function startImages() {
  let buffer = new Uint8Array(0);
  /** The image whose bytes are in `buffer` now. */
  let holder = null;

  return {
    /** A copy of the VM's memory as it is now; the last copy taken here is no longer valid, unless a run holds it (pinned). */
    take(exports, catalog) {
      const memory = new Uint8Array(exports.memory.buffer);
      let raw;
      if (holder !== null && holder.pinned) {
        raw = memory.slice();
      } else {
        if (holder !== null) holder.valid = false;
        if (buffer.byteLength < memory.byteLength || buffer.byteLength > SHRINK_FACTOR * memory.byteLength) buffer = new Uint8Array(memory.byteLength);
        buffer.set(memory);
        raw = buffer.subarray(0, memory.byteLength);
      }
      const pointers = {
        stackPointer: exports.__stack_pointer.value,
        runtimePtr: exports.qjs_get_runtime_ptr(),
        contextPtr: exports.qjs_get_context_ptr(),
      };
      const image = {
        valid: true,
        pinned: false,
        forMove: () => ({ ...compactMemory(raw), ...pointers, catalog }),
      };
      if (raw.buffer === buffer.buffer) holder = image;
      return image;
    },
  };
}
