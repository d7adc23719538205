/**
 * A sandbox's VMs are instantiated at once (engines/quickjs/instantiate-now.mjs), not by V8's
 * asynchronous path, which held a VM's restore 90–160 ms behind the optimizing compile of a hot
 * QuickJS function. How long it holds it depends on the machine (a bench's question); what is
 * pinned here is the path: V8's promise is still pending after the current microtasks, the
 * rule's is settled. Each test file runs in a process of its own, so the rule installed here
 * stays here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { instantiateCompiledModulesAtOnce } from '../../../src/runtime/js/engines/quickjs/instantiate-now.mjs';

const require = createRequire(import.meta.url);
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (...args: never[]) => object;
  instantiate(source: unknown, imports?: object): Promise<unknown>;
}
const { WebAssembly: Wasm } = globalThis as unknown as { WebAssembly: Wasm };
const bytes = readFileSync(require.resolve('quickjs-wasi/quickjs.wasm'));
const module = new Wasm.Module(bytes);
/** Imports the QuickJS module links against; none is called by instantiating. */
const imports = { wasi_snapshot_preview1: new Proxy({}, { get: () => () => 0 }), env: new Proxy({}, { get: () => () => 0 }) };

/** Whether `promise` had settled before the microtasks queued after it ran. */
async function settledAtOnce(promise: Promise<unknown>): Promise<boolean> {
  const later = {};
  return (await Promise.race([promise, Promise.resolve(later)])) !== later;
}

describe('instantiating QuickJS at once', () => {
  it("V8's own path settles later: the difference the rule makes", async () => {
    assert.equal(await settledAtOnce(Wasm.instantiate(module, imports)), false);
  });

  it('a compiled module is instantiated at once, and QuickJS runs on it', async () => {
    instantiateCompiledModulesAtOnce();
    const instantiating = Wasm.instantiate(module, imports);
    assert.equal(await settledAtOnce(instantiating), true);
    assert.ok((await instantiating) instanceof Wasm.Instance);
    const { QuickJS } = (await import(require.resolve('quickjs-wasi'))) as {
      QuickJS: { create(o: object): Promise<{ evalCode(code: string): { dispose(): void }; dump(h: unknown): unknown; dispose(): void }> };
    };
    const vm = await QuickJS.create({ wasm: module });
    const result = vm.evalCode('[1, 2, 3].map((x) => x * 2).join()');
    assert.equal(vm.dump(result), '2,4,6');
    result.dispose();
    vm.dispose();
  });

  it('bytes still compile by V8\'s path, and a failed link rejects rather than throws', async () => {
    instantiateCompiledModulesAtOnce();
    const fromBytes = (await Wasm.instantiate(bytes, imports)) as { module: object; instance: object };
    assert.ok(fromBytes.instance instanceof Wasm.Instance);
    let linking: Promise<unknown> | undefined;
    assert.doesNotThrow(() => (linking = Wasm.instantiate(module, {})));
    await assert.rejects(linking!, TypeError);
  });
});
