/** Bytes of one direction's mailbox: frames whose UTF-8 could be larger go by the port. */
export const MAILBOX_BYTES: number;
/** Raised for mailbox bytes that cannot be a frame. */
export class MailboxError extends Error {}
/** The sending side of one mailbox. */
export class MailboxSender {
  constructor(board: Int32Array, bytes: Buffer, fullSlot: number, takenSlot: number);
  /** Puts a frame in the mailbox if the ordering rule allows it and it surely fits; false: post it by the port. */
  tryPut(header: unknown, payloads: readonly string[]): boolean;
  /** A message went by the port instead. */
  portPosted(): void;
}
/** The receiving side of one mailbox. */
export class MailboxReceiver {
  constructor(board: Int32Array, bytes: Buffer, fullSlot: number, takenSlot: number);
  /** Whether a frame waits in the mailbox. */
  readonly full: boolean;
  /** Whether a port message is held behind a mailbox frame already handed on. */
  readonly holding: boolean;
  /** The next thing in order, given the port message just received (if any). */
  take(fromPort: unknown): { mailbox: { header: unknown; payloads: string[] }; port?: undefined } | { port: unknown; mailbox?: undefined } | undefined;
}
/** The two mailboxes of a thread's bridge over one shared buffer. */
export function mailboxBytes(buffer: SharedArrayBuffer): { toThread: Buffer; toHost: Buffer };
