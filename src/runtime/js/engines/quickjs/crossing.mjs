// The per-call crossing between a QuickJS VM and its sandbox thread, made with the engine's
// exports and raw value pointers instead of quickjs-wasi's handle objects.
//
// Why: a tool call crosses twice (the prelude's bridge call out, the answer's delivery in), and
// through the library each crossing decoded the host function's name, made a handle object per
// argument and per answer, and allocated in the VM twice for every string read. On the 2-core
// machine that was about a fifth of the sandbox thread's own work per call.
//
// The rule this file keeps, the one the bridge has always kept: only numbers and strings cross.
// An argument is read as a number or a string after a type check on the value itself, so no
// guest code (a toString, a getter, a proxy trap) can run while the host reads it; anything else
// reads as undefined.
//
// Ownership, as quickjs-wasi's own host-call trampoline has it: the argument pointers belong to
// the trampoline (never freed here), and the value pointer a host function returns is taken over
// by it (a fresh box, or a duplicate of a kept one).

/** The host function the prelude calls (template.mjs creates it under this name). */
const BRIDGE = 'bridge';
const BRIDGE_BYTES = Buffer.from(BRIDGE);
/** UTF-8 lead byte of U+D000–U+DFFF: WTF-8 writes a lone surrogate as ED A0–BF xx. */
const SURROGATE_LEAD = 0xed;

/**
 * Installs the crossing on `vm`: calls of the host function named `bridge` go to the handler
 * given to `bind` (with raw argument pointers; it returns a value pointer the trampoline takes
 * over); other host functions keep the library's path.
 * @param {any} vm a quickjs-wasi VM
 * @param {any} JSValueHandle the library's handle class (exact decoding of lone surrogates)
 */
export function rawCrossing(vm, JSValueHandle) {
  const exports = vm._getExports();
  /** One 4-byte cell in the VM's memory for string lengths, kept for the VM's life. */
  let lengthCell = exports.wasm_malloc(4);
  if (lengthCell === 0) throw new Error('wasm_malloc failed');
  let bytes = Buffer.from(exports.memory.buffer);
  /** A view of the VM's memory; a new one once the memory has grown (its buffer is replaced). */
  const memory = () => (bytes.buffer === exports.memory.buffer ? bytes : (bytes = Buffer.from(exports.memory.buffer)));

  const crossing = {
    /** A view of the VM's memory, current after any growth (also for the thread's control calls). */
    memory,

    /** The value at `ptr` if it is a number, else undefined. */
    num(ptr) {
      return ptr !== 0 && exports.qjs_is_number(ptr) ? exports.qjs_get_float64(ptr) : undefined;
    },

    /** The value at `ptr` if it is a string, else undefined; runs no guest code. */
    str(ptr) {
      if (ptr === 0 || !exports.qjs_is_string(ptr)) return undefined;
      const at = exports.qjs_get_string_len(ptr, lengthCell);
      if (at === 0) return undefined;
      const m = memory();
      const length = m.readUInt32LE(lengthCell);
      const lone = m.subarray(at, at + length).indexOf(SURROGATE_LEAD) !== -1;
      const text = lone ? '' : m.utf8Slice(at, at + length);
      exports.qjs_free_cstring(at);
      // Text with U+D000–U+DFFF (Hangul among it) may hold a lone surrogate: the library decodes it exactly.
      return lone ? new JSValueHandle(vm, ptr, false, true).toString() : text;
    },

    /** A fresh number value for the trampoline or a control call. */
    number(n) {
      return exports.qjs_new_number(n);
    },

    /** A fresh string value; a string with a lone surrogate goes through the library's WTF-8. */
    string(text) {
      if (!text.isWellFormed()) {
        const handle = vm.newString(text);
        const ptr = exports.qjs_dup_value(handle.ptr);
        handle.dispose();
        return ptr;
      }
      const length = Buffer.byteLength(text, 'utf8');
      const at = exports.wasm_malloc(length + 1);
      if (at === 0) throw new Error('wasm_malloc failed');
      const m = memory();
      m.utf8Write(text, at, length);
      m[at + length] = 0;
      const ptr = exports.qjs_new_string(at, length);
      exports.wasm_free(at);
      return ptr;
    },

    /** `null`, as a value the trampoline may take over. */
    null() {
      return exports.qjs_dup_value(vm.null.ptr);
    },

    /** Frees a value made by number() or string() that was not handed to the trampoline. */
    free(ptr) {
      exports.qjs_free_value(ptr);
    },

    /** Routes calls of the bridge to `handler` (null: the bridge answers null). */
    bind(handler) {
      crossing.handler = handler;
    },

    handler: null,

    /** Unbinds the handler and gives the VM's length cell back; the crossing is not used after. */
    dispose() {
      crossing.handler = null;
      if (lengthCell !== 0) exports.wasm_free(lengthCell);
      lengthCell = 0;
    },
  };

  const libraryCall = vm.handleHostCall.bind(vm);
  vm.handleHostCall = (namePtr, nameLength, thisPtr, argc, argvPtr) => {
    if (nameLength !== BRIDGE_BYTES.length || memory().compare(BRIDGE_BYTES, 0, BRIDGE_BYTES.length, namePtr, namePtr + nameLength) !== 0) {
      return libraryCall(namePtr, nameLength, thisPtr, argc, argvPtr);
    }
    const m = memory();
    const arg = (i) => (i < argc ? m.readUInt32LE(argvPtr + 4 * i) : 0);
    try {
      if (crossing.handler === null) return crossing.null();
      return crossing.handler(arg(0), arg(1), arg(2), arg(3));
    } catch (error) {
      // As the library does for a throwing host function: the guest sees the error.
      const thrown = vm.newError(error instanceof Error ? error : String(error));
      exports.qjs_throw(thrown.ptr);
      thrown.dispose();
      return 0;
    }
  };
  return crossing;
}
