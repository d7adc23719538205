// The layout of the board a sandbox shares with the host, as 32-bit slots: a file of a sandbox
// process (sandbox-process.ts, read with pread by sandbox/io.mjs) or a SharedArrayBuffer of a
// sandbox thread (engines/quickjs/thread.ts and sandbox/io.mjs, with Atomics). Written once
// here so the two sides cannot disagree.
//
// Slot 0 is the doorbell: frames the host has sent. Then the cancel slots: a cancelled run's id
// is written at cancelSlot(id), where a sandbox busy running that run's code (the QuickJS
// interrupt handler) sees it without reading frames mid-script — a frame read there could be
// half-consumed when the guest's recursion leaves the handler no stack, and the frame count would
// then never match the doorbell again. Threads only: then the state of the two mailboxes
// (sandbox/mailbox.mjs): per direction, the size of the frame waiting in it (0: empty) and how
// many of the sender's port messages the receiver has taken; whether the host's loop is watching
// for the thread's next frame; and whether the thread may watch for the host's (the host decides:
// sandbox/watch-rule.mjs).

/** Slot of the doorbell. */
export const DOORBELL_SLOT = 0;
/** Number of cancel slots after the doorbell. */
export const CANCEL_SLOTS = 16;
/** Slots of a process's board file: the doorbell and the cancel slots. */
export const PROCESS_BOARD_SLOTS = 1 + CANCEL_SLOTS;
/** Host to thread mailbox: bytes of the frame waiting in it, 0 when empty. */
export const TO_THREAD_FULL_SLOT = PROCESS_BOARD_SLOTS;
/** Host to thread: port messages of the host's the thread has taken. */
export const TO_THREAD_TAKEN_SLOT = PROCESS_BOARD_SLOTS + 1;
/** Thread to host mailbox: bytes of the frame waiting in it, 0 when empty. */
export const TO_HOST_FULL_SLOT = PROCESS_BOARD_SLOTS + 2;
/** Thread to host: port messages of the thread's the host has taken. */
export const TO_HOST_TAKEN_SLOT = PROCESS_BOARD_SLOTS + 3;
/** 1 while the host's loop watches for the thread's next frame (else the thread posts a wake). */
export const HOST_WATCHING_SLOT = PROCESS_BOARD_SLOTS + 4;
/** 1 while a watch pays (sandbox/watch-rule.mjs): the thread may watch for the host's answer. */
export const THREAD_MAY_WATCH_SLOT = PROCESS_BOARD_SLOTS + 5;
/** Slots of a thread's board. */
export const BOARD_SLOTS = PROCESS_BOARD_SLOTS + 6;

/** The slot a cancel of run `id` is posted at. */
export function cancelSlot(id) {
  return 1 + (id % CANCEL_SLOTS);
}
