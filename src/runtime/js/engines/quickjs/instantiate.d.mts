/** Replaces WebAssembly.instantiate(module, imports) with a synchronous instantiation (instantiate.mjs). Idempotent. */
export function instantiateSynchronously(): void;
