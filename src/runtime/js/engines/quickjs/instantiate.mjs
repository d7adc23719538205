// How VMs are instantiated in a QuickJS sandbox thread or process: synchronously.
//
// quickjs-wasi makes each VM with `WebAssembly.instantiate(module, imports)`. In V8 (Node 20)
// that asynchronous form of a compiled module blocks the calling thread while the optimizing
// tier compiles the module's functions in the background, and the first runs of a thread set
// that compile off: the spare VM a thread prepares after its first run waited 220–320 ms, and a
// frame arriving meanwhile (the next run, a tool's answer) waited behind it. `new WebAssembly.Instance`
// makes the same instance at once (3–6 ms). Only this engine's own code runs on the thread's
// Node side (guest code runs inside the VMs), so the global is replaced here, for compiled
// modules only; bytes still go the asynchronous way.

/** Replaces WebAssembly.instantiate(module, imports) with a synchronous instantiation. Idempotent. */
export function instantiateSynchronously() {
  const original = WebAssembly.instantiate;
  if (original.synchronous === true) return;
  const instantiate = (source, imports) => {
    if (!(source instanceof WebAssembly.Module)) return original.call(WebAssembly, source, imports);
    try {
      return Promise.resolve(new WebAssembly.Instance(source, imports));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  instantiate.synchronous = true;
  WebAssembly.instantiate = instantiate;
}
