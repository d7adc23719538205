/** Slot of the doorbell. */
export const DOORBELL_SLOT: number;
/** Number of cancel slots after the doorbell. */
export const CANCEL_SLOTS: number;
/** Slots of a process's board file: the doorbell and the cancel slots. */
export const PROCESS_BOARD_SLOTS: number;
/** Where the host reports, in µs, how long it took between the thread's frame and its answer. */
export const HOST_TOOK_SLOT: number;
/** Where the thread reports, in µs, how long it took between the host's frame and its next one. */
export const THREAD_TOOK_SLOT: number;
/** Host to thread mailbox: bytes of the frame waiting in it, 0 when empty. */
export const TO_THREAD_FULL_SLOT: number;
/** Host to thread: port messages of the host's the thread has taken. */
export const TO_THREAD_TAKEN_SLOT: number;
/** Thread to host mailbox: bytes of the frame waiting in it, 0 when empty. */
export const TO_HOST_FULL_SLOT: number;
/** Thread to host: port messages of the thread's the host has taken. */
export const TO_HOST_TAKEN_SLOT: number;
/** 1 while the host's loop watches for the thread's next frame (then the thread may use its mailbox). */
export const HOST_WATCHING_SLOT: number;
/** 1 while the thread sleeps on the doorbell (then an answer costs it a wake-up). */
export const THREAD_SLEEPING_SLOT: number;
/** Slots of a thread's board. */
export const BOARD_SLOTS: number;
/** The slot a cancel of run `id` is posted at. */
export function cancelSlot(id: number): number;
/** A duration in ms as the board holds it: whole µs, within an Int32. */
export function boardMicros(ms: number): number;
