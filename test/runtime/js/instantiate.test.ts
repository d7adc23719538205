/**
 * engines/quickjs/instantiate.mjs: a sandbox thread instantiates compiled modules with the
 * synchronous constructor. (Why — V8's asynchronous form blocking for the optimizing compile in
 * flight — is a matter of time, measured in the file's header, not asserted here.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instantiateSynchronously } from '../../../src/runtime/js/engines/quickjs/instantiate.mjs';

type Wasm = {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => object;
  instantiate: (source: unknown, imports?: object) => Promise<unknown>;
};
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

/** (module (import "m" "f" (func)) (start 0)): instantiating it calls m.f. */
const STARTS = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 2, 7, 1, 1, 0x6d, 1, 0x66, 0, 0, 8, 1, 0]);

/** Counts constructions of WebAssembly.Instance while `body` runs; `body` may read the count so far. */
async function countingInstances(body: (made: () => number) => Promise<void>): Promise<number> {
  const Original = wasm.Instance;
  let made = 0;
  wasm.Instance = new Proxy(Original, {
    construct(target, args) {
      made += 1;
      return Reflect.construct(target, args);
    },
  });
  try {
    await body(() => made);
  } finally {
    wasm.Instance = Original;
  }
  return made;
}

test('a compiled module is instantiated by the synchronous constructor, and settles at once', async () => {
  const module = new wasm.Module(STARTS);
  const imports = { m: { f: () => {} } };
  assert.equal(await countingInstances(async () => void (await wasm.instantiate(module, imports))), 0, 'V8 instantiates on its own path before the replacement');
  instantiateSynchronously();
  const made = await countingInstances(async (madeSoFar) => {
    const pending = wasm.instantiate(module, imports);
    assert.equal(madeSoFar(), 1, 'constructed before instantiate returned');
    assert.ok((await pending) instanceof wasm.Instance);
  });
  assert.equal(made, 1);
});

test('the replacement is made once, leaves bytes the asynchronous way, and rejects a failing instantiation', async () => {
  instantiateSynchronously();
  const replaced = wasm.instantiate;
  instantiateSynchronously();
  assert.equal(wasm.instantiate, replaced);
  let started = 0;
  const result = (await wasm.instantiate(STARTS, { m: { f: () => (started += 1) } })) as { instance: unknown };
  assert.ok(result.instance, 'bytes give { module, instance }');
  assert.equal(started, 1);
  await assert.rejects(wasm.instantiate(new wasm.Module(STARTS), { m: {} }), /Import #0/);
});
