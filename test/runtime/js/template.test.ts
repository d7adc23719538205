/**
 * The QuickJS template image (engines/quickjs/template.mjs): the file round trip, the key that
 * keeps an image built from other sources or another engine out, and sandbox threads that start
 * from an image instead of building the template. `npm run build` ships one; the packed-package
 * test (test/pack.test.ts) checks that the package's own image is the one its threads take.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { imageRestorer } from '../../../src/runtime/js/engines/quickjs/memory-image.mjs';
import { buildTemplate, readTemplateImage, templateInputs, templateKey, wasmDigest, writeTemplateImage, type TemplateImage } from '../../../src/runtime/js/engines/quickjs/template.mjs';
import { errorOf, tool, valueOf } from './helpers.ts';

const require = createRequire(import.meta.url);
/** Where fixtures/thread-template-image.mjs looks for its image. */
const IMAGE = join(tmpdir(), `toolcell-template-test-${process.pid}.img`);
const OTHER = join(tmpdir(), `toolcell-template-test-${process.pid}-other.img`);
after(() => {
  rmSync(IMAGE, { force: true });
  rmSync(OTHER, { force: true });
});

async function template() {
  const quickjs = (await import(require.resolve('quickjs-wasi'))) as { QuickJS: unknown };
  const bytes = readFileSync(require.resolve('quickjs-wasi/quickjs.wasm'));
  const { options, sources, key } = templateInputs(quickjs, bytes);
  const { image, vm } = await buildTemplate(quickjs.QuickJS, options, sources);
  vm.dispose();
  return { quickjs, options, sources, image, key, digest: wasmDigest(bytes) };
}

describe('template images', () => {
  test('read back as written, and only for their own key', async () => {
    const { image, key, digest, sources, options } = await template();
    writeTemplateImage(OTHER, key, image);
    const read = readTemplateImage(OTHER, key);
    assert.ok(read.image, read.absent);
    for (const field of ['size', 'stackPointer', 'runtimePtr', 'contextPtr', 'token'] as const) assert.equal(read.image[field], image[field], field);
    assert.deepEqual([...read.image.blocks], [...image.blocks]);
    assert.ok(Buffer.from(read.image.data).equals(Buffer.from(image.data)));
    // Another engine build, other guest code: the image is not theirs.
    assert.deepEqual(readTemplateImage(OTHER, templateKey('0'.repeat(64), sources, options)), { absent: 'the image was built from other sources' });
    assert.deepEqual(readTemplateImage(OTHER, templateKey(digest, { ...sources, prelude: `${sources.prelude}\n` }, options)), { absent: 'the image was built from other sources' });
    assert.deepEqual(readTemplateImage(join(tmpdir(), 'toolcell-no-such-image.img'), key), { absent: 'no image' });
    // A cut file is damage, said as such, not a template to guess at.
    writeFileSync(OTHER, readFileSync(OTHER).subarray(0, 5000));
    assert.throws(() => readTemplateImage(OTHER, key), /a template image of 5000 bytes, not the \d+ its header says/);
    writeFileSync(OTHER, 'not an image at all');
    assert.throws(() => readTemplateImage(OTHER, key), /not a template image \(its header does not read: /);
  });

  test('restore the hardened template: frozen intrinsics, the control function behind its token', async () => {
    const { quickjs, options, image, key } = await template();
    writeTemplateImage(OTHER, key, image);
    const read = readTemplateImage(OTHER, key).image as TemplateImage;
    const vm = await imageRestorer(quickjs.QuickJS, options)(read);
    const control = vm.importHandle(read.token);
    assert.equal(vm.typeof(control), 'function');
    const frozen = vm.evalCode('Object.isFrozen(Array.prototype) && Object.isFrozen(Object) && typeof Function.prototype.constructor');
    assert.equal(vm.dump(frozen), 'function');
    control.dispose();
    frozen.dispose();
    vm.dispose();
  });
});

describe('sandbox threads started from an image', () => {
  const entry = fileURLToPath(new URL('./fixtures/thread-template-image.mjs', import.meta.url));

  test('run scripts, tool calls and errors as threads that built their template', async () => {
    const { image, key } = await template();
    writeTemplateImage(IMAGE, key, image);
    const runtime = new JsRuntime({ sandboxEntry: entry, pool: { minProcesses: 0 } });
    try {
      const tools = [tool('echo')];
      assert.deepEqual(valueOf(await runtime.execute('const a = await tools.echo({ n: 1 }); console.log("seen"); return [a.n, typeof eval];', { tools, conversation: 'c' })), [1, 'undefined']);
      // The conversation's VM was kept: its state carries on.
      valueOf(await runtime.execute('globalThis.kept = 41; return 0', { tools, conversation: 'd' }));
      assert.equal(valueOf(await runtime.execute('return kept + 1', { tools, conversation: 'd' })), 42);
      const error = errorOf(await runtime.execute('null.x', { tools }));
      assert.equal(error.kind, 'script');
      assert.equal(error.name, 'TypeError');
    } finally {
      await runtime.close();
    }
  });

  test('take the image when its key matches: a damaged one with the right key breaks them', async () => {
    // What proves the image is used and not rebuilt: its control token pointed elsewhere.
    const { image, key } = await template();
    writeTemplateImage(IMAGE, key, { ...image, token: 8 });
    const runtime = new JsRuntime({ sandboxEntry: entry, pool: { minProcesses: 0 } });
    try {
      const error = errorOf(await runtime.execute('return 1', { tools: [], timeoutMs: 20_000 }));
      assert.match(error.message, /not a function/);
    } finally {
      await runtime.close();
    }
  });

  test('say so when the image is damaged: every run fails as sandbox, naming the file', async () => {
    writeFileSync(IMAGE, 'not an image at all');
    const runtime = new JsRuntime({ sandboxEntry: entry, pool: { minProcesses: 0 } });
    try {
      const error = errorOf(await runtime.execute('return 1', { tools: [], timeoutMs: 20_000 }));
      assert.equal(error.kind, 'sandbox');
      assert.match(error.message, /toolcell-template-test-\d+\.img: not a template image/);
    } finally {
      await runtime.close();
    }
  });

  test('build their own template when the image was made from other sources', async () => {
    const { image, sources, options, digest } = await template();
    writeTemplateImage(IMAGE, templateKey(digest, { ...sources, harden: `${sources.harden};` }, options), { ...image, token: 8 });
    const runtime = new JsRuntime({ sandboxEntry: entry, pool: { minProcesses: 0 } });
    try {
      assert.equal(valueOf(await runtime.execute('return await tools.echo(7)', { tools: [tool('echo')] })), 7);
    } finally {
      await runtime.close();
    }
  });
});
