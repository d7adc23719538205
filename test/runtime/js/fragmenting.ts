/**
 * A script that fragments a QuickJS VM's heap: each round allocates blocks of one size, keeps one
 * in eight and asks for blocks eight times larger next, which never fit the holes left. About
 * `mb` MiB are allocated in all, an eighth of it live: under heapMb 32 the allocator saw ~14 MiB
 * live while the VM's memory grew past 100 MiB (measured before its memory was bounded).
 */
export function fragmenting(mb: number): string {
  return `
const keep = [];
let size = 512;
for (let round = 0; round < 5; round++) {
  const n = Math.max(8, Math.floor(${mb} * 1048576 / 5 / size));
  const batch = [];
  for (let i = 0; i < n; i++) batch.push('x'.repeat(size));
  for (let i = 0; i < n; i += 8) keep.push(batch[i]);
  size *= 8;
}
globalThis.kept = keep;
return keep.reduce((a, b) => a + b.length, 0);`;
}
