import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { compactMemory, imageRestorer, PARK_BLOCK } from '../../../src/runtime/js/engines/quickjs/memory-image.mjs';

const require = createRequire(import.meta.url);
const { WebAssembly: Wasm } = globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object } };

interface Vm {
  evalCode(code: string): { dispose(): void };
  dump(handle: unknown): unknown;
  snapshot(): { memory: Uint8Array; stackPointer: number; runtimePtr: number; contextPtr: number };
  _getExports(): { memory: { buffer: ArrayBuffer }; __stack_pointer: { value: number } };
  dispose(): void;
}

async function quickjs() {
  const { QuickJS } = (await import(require.resolve('quickjs-wasi'))) as { QuickJS: { create(o: object): Promise<Vm>; restore(s: object, o: object): Promise<Vm> } };
  const options = { wasm: new Wasm.Module(readFileSync(require.resolve('quickjs-wasi/quickjs.wasm'))) };
  return { QuickJS, options };
}

describe('memory images of QuickJS VMs', () => {
  it('leave out the zero blocks, most of a VM', async () => {
    const { QuickJS, options } = await quickjs();
    const vm = await QuickJS.create(options);
    const memory = new Uint8Array(vm._getExports().memory.buffer);
    const image = compactMemory(memory);
    assert.equal(image.size, memory.byteLength);
    assert.ok(image.blocks.length < memory.byteLength / PARK_BLOCK / 2, `${image.blocks.length} of ${memory.byteLength / PARK_BLOCK} blocks kept`);
    vm.dispose();
  });

  it('restore the memory QuickJS.restore makes from the whole memory, byte for byte, and a VM that goes on', async () => {
    const { QuickJS, options } = await quickjs();
    const vm = await QuickJS.create(options);
    // A deep recursion reaches into the C stack, a long string grows the heap.
    vm.evalCode('globalThis.s = "x".repeat(300000); function f(n) { return n ? f(n - 1) + 1 : 0 } globalThis.depth = f(1000);').dispose();
    const full = vm.snapshot();
    const image = { ...compactMemory(full.memory), stackPointer: full.stackPointer, runtimePtr: full.runtimePtr, contextPtr: full.contextPtr };
    const restore = imageRestorer(QuickJS, options);
    for (let round = 0; round < 2; round++) {
      const restored = (await restore(image)) as Vm;
      const reference = await QuickJS.restore({ ...full, extensions: [] }, options);
      const a = new Uint8Array(restored._getExports().memory.buffer);
      const b = new Uint8Array(reference._getExports().memory.buffer);
      assert.equal(a.length, b.length);
      assert.ok(a.every((byte, i) => byte === b[i]), 'the same memory');
      const answer = restored.evalCode('s.length + depth + f(10)');
      assert.equal(restored.dump(answer), 300000 + 1000 + 10);
      restored.dispose();
      reference.dispose();
    }
    vm.dispose();
  });
});
