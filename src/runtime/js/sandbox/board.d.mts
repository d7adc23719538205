/** Slot of the doorbell. */
export const DOORBELL_SLOT: number;
/** Number of cancel slots after the doorbell. */
export const CANCEL_SLOTS: number;
/** Slots of a process's board file: the doorbell and the cancel slots. */
export const PROCESS_BOARD_SLOTS: number;
/** Host to thread mailbox: bytes of the frame waiting in it, 0 when empty. */
export const TO_THREAD_FULL_SLOT: number;
/** Host to thread: port messages of the host's the thread has taken. */
export const TO_THREAD_TAKEN_SLOT: number;
/** Thread to host mailbox: bytes of the frame waiting in it, 0 when empty. */
export const TO_HOST_FULL_SLOT: number;
/** Thread to host: port messages of the thread's the host has taken. */
export const TO_HOST_TAKEN_SLOT: number;
/** 1 while the host's loop watches for the thread's next frame (else the thread posts a wake). */
export const HOST_WATCHING_SLOT: number;
/** 1 while a watch pays (watch-rule.mjs): the thread may watch for the host's answer. */
export const THREAD_MAY_WATCH_SLOT: number;
/** Slots of a thread's board. */
export const BOARD_SLOTS: number;
/** The slot a cancel of run `id` is posted at. */
export function cancelSlot(id: number): number;
