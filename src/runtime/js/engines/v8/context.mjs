// Fresh sandbox contexts: a new V8 context per run, code generation from strings and wasm off,
// with the prelude installed and the context's intrinsics frozen before any script code exists.
// The first context is made only after this process's own intrinsics are frozen too.
import fs from 'node:fs';
import vm from 'node:vm';
import { formatSyntaxError } from '../../sandbox/syntax-error.mjs';

/** File name scripts are compiled under; stacks keep only frames from it. */
export const SCRIPT_FILE = 'script.js';

// Operations of the prelude's control function (keep in sync with prelude.js).
export const C_BIND = 1;
export const C_RUN = 2;
export const C_THROWN = 3;
export const C_DELIVER = 4;
export const C_IMPORT_ERROR = 5;
// Operations of the bridge (keep in sync with prelude.js).
export const B_CALL = 1;
export const B_LOG = 2;
export const B_DONE = 3;
export const B_FAIL = 4;
export const B_UNKNOWN_TOOL = 5;
export const B_RESOLVE = 6;
export const B_KEYS = 7;

/** A guest source (its path relative to this file), compiled once per process under `filename`. */
const guestScript = (path, filename) => new vm.Script(fs.readFileSync(new URL(path, import.meta.url), 'utf8'), { filename });
const prelude = guestScript('./prelude.js', 'toolcell-prelude');
// The inspector shared with the QuickJS engine: evaluated in each context before the prelude.
const inspectorScript = guestScript('../../guest/inspect.js', 'toolcell-inspect');
// Helpers both preludes share, evaluated in each context before the prelude too.
const coreScript = guestScript('../../guest/guest-core.js', 'toolcell-guest-core');
// The same hardening source runs in this realm (once) and in every context (see harden.js).
const harden = guestScript('../../guest/harden.js', 'toolcell-harden');
let processHardened = false;

/**
 * Freezes this process's own intrinsics. Called before the first context exists, so no script
 * ever runs in a process whose Object.prototype it could plant on; everything the process
 * needs (the watchdog thread, the pipes, the prelude's compilation) is set up by then.
 */
export function hardenProcess() {
  if (processHardened) return;
  installProcessStackFormatter();
  harden.runInThisContext()(true);
  processHardened = true;
}

/**
 * An error of this process's realm can reach a script (Node's own code overflowing on the
 * script's stack, say in its dynamic-import callback). Node's formatter would show that error
 * with every frame, this process's (`node:internal/...`, toolcell's absolute paths) included.
 * Frozen with the rest of this realm's intrinsics, this formatter keeps only script frames of
 * any trace that has one; the process's own errors, with no script frame, keep all of theirs.
 */
function installProcessStackFormatter() {
  const describe = (frame) => {
    try {
      return String(frame);
    } catch {
      return '<frame>';
    }
  };
  function formatProcessStack(error, frames) {
    let out;
    try {
      out = Error.prototype.toString.call(error);
    } catch {
      out = 'Error';
    }
    let fromScript = false;
    for (let i = 0; i < frames.length; i++) {
      try {
        if (frames[i].getFileName() === SCRIPT_FILE) fromScript = true;
      } catch {
        // a frame that cannot be read is left out below
      }
    }
    for (let i = 0; i < frames.length; i++) {
      let file;
      try {
        file = frames[i].getFileName();
      } catch {
        continue;
      }
      if (fromScript && file !== SCRIPT_FILE) continue;
      out += '\n    at ' + describe(frames[i]);
    }
    return out;
  }
  Object.defineProperty(Error, 'prepareStackTrace', { value: formatProcessStack, writable: false, enumerable: false, configurable: false });
}

const OPTIONS = { codeGeneration: { strings: false, wasm: false } };
const DONT_CONTEXTIFY = vm.constants?.DONT_CONTEXTIFY;

/**
 * @param {boolean} forceContextify use the fallback global even where DONT_CONTEXTIFY exists
 * @returns {{ ctx: object, control: Function, slot: { handler: Function | null } }}
 */
export function createSandboxContext(forceContextify) {
  hardenProcess();
  const vanilla = typeof DONT_CONTEXTIFY === 'symbol' && !forceContextify;
  // The fallback global has no prototype, so nothing of this realm hangs off it.
  const ctx = vm.createContext(vanilla ? DONT_CONTEXTIFY : Object.create(null), OPTIONS);
  const slot = { handler: null };
  const bridge = (op, a, b, c) => {
    const handler = slot.handler;
    return handler === null ? null : handler(op, a, b, c);
  };
  const setup = prelude.runInContext(ctx);
  const control = setup(bridge, SCRIPT_FILE, inspectorScript.runInContext(ctx)(), coreScript.runInContext(ctx)());
  harden.runInContext(ctx)(false);
  return { ctx, control, slot };
}

/**
 * Compiles a script as the body of an async function; line numbers match the script's own.
 * Throws the engine's SyntaxError (of this realm, never shown to the script).
 */
export function compileScript(code, control) {
  return new vm.Script(`(async function () {\n${code}\n})`, {
    filename: SCRIPT_FILE,
    lineOffset: -1,
    // Without a callback Node rejects import() with an error of this realm, whose constructor
    // chain would reach a working Function. The error thrown here belongs to the context.
    importModuleDynamically: () => {
      throw control(C_IMPORT_ERROR);
    },
  });
}

/**
 * Message and stack for an engine SyntaxError from compileScript: the script's line, the
 * column V8 marks with its caret, and that line with a caret (formatSyntaxError). An error found
 * in the wrapper's closing line (say, an unclosed bracket) is placed at the script's end.
 */
export function describeSyntaxError(error, code) {
  // Node decorates a compile error's stack: "script.js:LINE\n<the line>\n<spaces>^^^\n\nSyntaxError: …".
  const decorated = /^script\.js:(\d+)\n[^\n]*\n([ \t]*)\^/.exec(String(error.stack ?? ''));
  const line = Number(decorated?.[1] ?? /^script\.js:(\d+)/.exec(String(error.stack ?? ''))?.[1]);
  const column = decorated ? decorated[2].length + 1 : undefined;
  return formatSyntaxError(String(error.message), code, line, column);
}
