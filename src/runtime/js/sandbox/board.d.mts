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
/** Slots of a thread's board. */
export const BOARD_SLOTS: number;
/** The slot a cancel of run `id` is posted at. */
export function cancelSlot(id: number): number;
/** A duration in ms as the board holds it: whole µs, within an Int32. */
export function boardMicros(ms: number): number;
