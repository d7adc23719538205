// How a sandbox thread or process instantiates QuickJS's WebAssembly: at once, not by V8's
// asynchronous path. Installed by the entry (engines/quickjs/main.mjs) before its first VM, in a
// realm where only toolcell's own code runs on V8 (scripts run inside QuickJS).
//
// Why: quickjs-wasi creates and restores every VM with `await WebAssembly.instantiate(module,
// imports)`. V8 holds that promise back while it compiles a hot function of the same module with
// its optimizing tier, and a thread's first runs make QuickJS's interpreter hot. Measured on the
// 2-core machine: a VM restored right after a loop of 30,000 iterations took 92–163 ms by the
// asynchronous path (6 processes) and 1.5–2.3 ms by `new WebAssembly.Instance` (3 processes). The
// thread restores its spare VM right after a run, so a conversation's second run, sent at once,
// waited 110–150 ms behind that restore; a thread started for a second conversation waited too.

const asynchronous = WebAssembly.instantiate;

/**
 * From now on, `WebAssembly.instantiate` of an already compiled module in this realm builds the
 * instance synchronously and returns it settled; bytes still take V8's own path (they need a
 * compile, which that path runs off the thread).
 */
export function instantiateCompiledModulesAtOnce() {
  WebAssembly.instantiate = function instantiate(source, imports) {
    if (!(source instanceof WebAssembly.Module)) return asynchronous.call(WebAssembly, source, imports);
    try {
      return Promise.resolve(new WebAssembly.Instance(source, imports));
    } catch (error) {
      return Promise.reject(error);
    }
  };
}
