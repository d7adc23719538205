// The layout of the board a sandbox shares with the host, as 32-bit slots: a file of a sandbox
// process (sandbox-process.ts, read with pread by sandbox/io.mjs) or a SharedArrayBuffer of a
// sandbox thread (engines/quickjs/thread.ts and sandbox/io.mjs, with Atomics). Written once
// here so the two sides cannot disagree.
//
// Slot 0 is the doorbell: frames the host has sent. Then the cancel slots: a cancelled run's id
// is written at cancelSlot(id), where a sandbox busy running that run's code (the QuickJS
// interrupt handler) sees it without reading frames mid-script — a frame read there could be
// half-consumed when the guest's recursion leaves the handler no stack, and the frame count would
// then never match the doorbell again. Threads only: then each side's report of how long it took
// to reply, which the other side's watch rule reads (sandbox/watch-gate.mjs).

/** Slot of the doorbell. */
export const DOORBELL_SLOT = 0;
/** Number of cancel slots after the doorbell. */
export const CANCEL_SLOTS = 16;
/** Slots of a process's board file: the doorbell and the cancel slots. */
export const PROCESS_BOARD_SLOTS = 1 + CANCEL_SLOTS;
/** Where the host reports, in µs, how long it took between the thread's frame and its answer. */
export const HOST_TOOK_SLOT = PROCESS_BOARD_SLOTS;
/** Where the thread reports, in µs, how long it took between the host's frame and its next one. */
export const THREAD_TOOK_SLOT = PROCESS_BOARD_SLOTS + 1;
/** Slots of a thread's board. */
export const BOARD_SLOTS = PROCESS_BOARD_SLOTS + 2;

/** The slot a cancel of run `id` is posted at. */
export function cancelSlot(id) {
  return 1 + (id % CANCEL_SLOTS);
}

/** A duration in ms as the board holds it: whole µs, within an Int32. */
export function boardMicros(ms) {
  return Math.min(0x7fffffff, Math.max(0, Math.round(ms * 1000)));
}
