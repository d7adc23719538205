// The template every QuickJS VM of a sandbox thread or process starts from (engines/quickjs/main.mjs):
// how it is built, and the image of it the package ships (template.img beside this file, written
// by `npm run build`: scripts/build.mjs).
//
// Why ship it: building the template evaluates the guest code (inspect, guest core, prelude,
// harden) inside QuickJS, 100–110 ms of a new thread's CPU on the 2-core machine, all of it on a
// cold run's critical path (the host waits for the thread). Restoring the same state from its
// image copies ~0.4 MB. The image is used only when its key matches what this process would
// build from: the QuickJS WebAssembly's bytes, the guest sources, the intrinsics and the stack
// size. Anything else (a source edited after the build, another quickjs-wasi) builds afresh,
// as a checkout running from src/ (which has no image) always does.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { memoryImage, PARK_BLOCK } from './memory-image.mjs';

/** The image this package ships, when it was built (dist/ only). */
export const IMAGE_FILE = new URL('./template.img', import.meta.url);
/** Bumped whenever the file's layout or what a template holds changes. */
const FORMAT = 1;

/**
 * The options every VM is created and restored with: quickjs-wasi's module (`quickjs`, for its
 * constants), the compiled WebAssembly, and the interrupt handler that enforces deadlines and
 * cancels (sandbox-loop.mjs; none when an image is only being written).
 */
export function vmOptionsFor(quickjs, wasmModule, interruptHandler = () => false) {
  const { Intrinsics, MAX_STACK_SIZE } = quickjs;
  return {
    wasm: wasmModule,
    maxStackSize: MAX_STACK_SIZE,
    // No weak references (their timing reveals the collector). The eval intrinsic stays: the
    // host compiles scripts through it; the prelude takes `eval` and the Function constructors away.
    intrinsics: Intrinsics.ALL & ~Intrinsics.WEAK_REF,
    interruptHandler,
    // import() reaches no module. A string, not an Error: an Error's host stack would be copied in.
    moduleLoader: {
      load() {
        throw 'import() is not available in the sandbox';
      },
    },
    // Engine diagnostics would go to the sandbox's stdout; there is nobody to read them.
    wasi: (memory) => ({
      // Date.now() in the guest, as quickjs-wasi reads it (ms, as ns).
      clock_time_get(id, _precision, result) {
        if (id !== 0 && id !== 1) return 52; // ENOSYS: only the realtime and monotonic clocks
        new DataView(memory.buffer).setBigUint64(result, BigInt(Date.now()) * 1000000n, true);
        return 0;
      },
      fd_write(_fd, iovs, count, written) {
        const view = new DataView(memory.buffer);
        let total = 0;
        for (let i = 0; i < count; i++) total += view.getUint32(iovs + i * 8 + 4, true);
        view.setUint32(written, total, true);
        return 0;
      },
    }),
  };
}

/** The guest code every VM holds, as evaluated into the template. */
export function guestSources() {
  const read = (path) => fs.readFileSync(new URL(path, import.meta.url), 'utf8');
  return {
    prelude: read('./prelude.js'),
    inspector: read('../../guest/inspect.js'),
    core: read('../../guest/guest-core.js'),
    // The V8 engine's hardening, unchanged: plain ECMAScript that freezes the realm it runs in.
    harden: read('../../guest/harden.js'),
  };
}

/** SHA-256 of the QuickJS WebAssembly's bytes (hex). */
export function wasmDigest(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * What building the template takes from quickjs-wasi (its module and its WebAssembly's bytes)
 * and this package's guest code, and the key an image of it carries: for the build that writes
 * the image and for checks of an installed package. (A sandbox thread has the module compiled
 * and only the bytes' digest; it computes the key from the parts.)
 */
export function templateInputs(quickjs, wasmBytes) {
  const options = vmOptionsFor(quickjs, new WebAssembly.Module(wasmBytes));
  const sources = guestSources();
  return { options, sources, key: templateKey(wasmDigest(wasmBytes), sources, options) };
}

/** What a template built here depends on, as one key an image must carry to be used. */
export function templateKey(digest, sources, vmOptions) {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([FORMAT, digest, vmOptions.intrinsics, vmOptions.maxStackSize, PARK_BLOCK]));
  for (const name of ['prelude', 'inspector', 'core', 'harden']) hash.update(`\0${name}\0${sources[name]}`);
  return hash.digest('hex');
}

/**
 * A VM with the prelude installed and its intrinsics frozen, captured before any script existed;
 * its image (memory-image.mjs, plus the control function's token) and the VM itself.
 *
 * Frozen after the prelude (which edits Math.random, the Function constructors and the global
 * object's members first): a script cannot patch a built-in the prelude relies on, such as a
 * `toJSON` on a prototype that would change the arguments a tool receives.
 */
export async function buildTemplate(QuickJS, vmOptions, sources) {
  const vm = await QuickJS.create(vmOptions);
  const bridgeFn = vm.newFunction('bridge', () => vm.null);
  const makeInspector = vm.evalCode(sources.inspector, 'toolcell-inspect');
  const inspector = vm.callFunction(makeInspector, vm.undefined);
  const makeCore = vm.evalCode(sources.core, 'toolcell-guest-core');
  const core = vm.callFunction(makeCore, vm.undefined);
  const setup = vm.evalCode(sources.prelude, 'toolcell-prelude');
  const control = vm.callFunction(setup, vm.undefined, bridgeFn, inspector, core);
  setup.dispose();
  core.dispose();
  makeCore.dispose();
  inspector.dispose();
  makeInspector.dispose();
  bridgeFn.dispose();
  // Everything, methods included: paid once, not per run.
  const harden = vm.evalCode(sources.harden, 'toolcell-harden');
  vm.callFunction(harden, vm.undefined, vm.true).dispose();
  harden.dispose();
  // The handle stays undisposed: its box is in every image taken from this VM's descendants.
  const token = vm.exportHandle(control);
  return { image: { ...memoryImage(vm._getExports()), token }, vm };
}

/*
 * The file: 4 bytes (little-endian) giving the length of a JSON header { key, size, stackPointer,
 * runtimePtr, contextPtr, token, count }, the header, then `count` block indexes (Int32, LE) and
 * `count` blocks of PARK_BLOCK bytes.
 */

/** Writes `image` for `key` to `file`. */
export function writeTemplateImage(file, key, image) {
  const { size, stackPointer, runtimePtr, contextPtr, token, blocks, data } = image;
  const header = Buffer.from(JSON.stringify({ key, size, stackPointer, runtimePtr, contextPtr, token, count: blocks.length }));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const indexes = Buffer.alloc(blocks.length * 4);
  blocks.forEach((b, i) => indexes.writeInt32LE(b, i * 4));
  fs.writeFileSync(file, Buffer.concat([length, header, indexes, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

/**
 * The image in `file` if it was made for `key`; otherwise `{ absent }` saying why (no file, or
 * built from something else). A file that is there but cannot be read as an image throws: the
 * package is damaged, which is not a reason to guess.
 */
export function readTemplateImage(file, key) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if (error?.code === 'ENOENT') return { absent: 'no image' };
    throw error;
  }
  let header;
  let headerEnd;
  try {
    headerEnd = 4 + bytes.readUInt32LE(0);
    header = JSON.parse(bytes.toString('utf8', 4, headerEnd));
  } catch (error) {
    throw new Error(`${file}: not a template image (its header does not read: ${error.message})`);
  }
  if (header.key !== key) return { absent: 'the image was built from other sources' };
  const { count } = header;
  const indexesEnd = headerEnd + count * 4;
  if (bytes.length !== indexesEnd + count * PARK_BLOCK) throw new Error(`${file}: a template image of ${bytes.length} bytes, not the ${indexesEnd + count * PARK_BLOCK} its header says`);
  const blocks = new Int32Array(count);
  for (let i = 0; i < count; i++) blocks[i] = bytes.readInt32LE(headerEnd + i * 4);
  const data = new Uint8Array(count * PARK_BLOCK);
  data.set(bytes.subarray(indexesEnd));
  const { size, stackPointer, runtimePtr, contextPtr, token } = header;
  return { image: { size, stackPointer, runtimePtr, contextPtr, token, blocks, data } };
}
