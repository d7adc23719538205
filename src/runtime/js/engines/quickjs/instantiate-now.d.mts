/** Types of instantiate-now.mjs (plain JavaScript run by sandbox threads and processes). */

/**
 * From now on, `WebAssembly.instantiate` of an already compiled module in this realm builds the
 * instance synchronously and returns it settled; bytes still take V8's own path.
 */
export function instantiateCompiledModulesAtOnce(): void;
