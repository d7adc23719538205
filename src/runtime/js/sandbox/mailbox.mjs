// One direction of a QuickJS thread's bridge beside its port: a mailbox in shared memory that
// holds one small frame. Used by the host (engines/quickjs/thread.ts) and the thread
// (sandbox/io.mjs) alike.
//
// Why: a postMessage costs both sides a structured clone, and the thread's costs a system call
// that wakes the host's loop even when the host is already watching for it. Measured on the
// 2-core machine as a bare ping-pong between a thread and the host (each side watching 50 µs):
// 55–62k round trips/s by postMessage, 60–88k/s through two mailboxes; beside two busy loops
// 7–11k/s against 27–32k/s.
//
// The rule that keeps frames in order, stated once here: a sender puts a frame in its mailbox
// only when the mailbox is empty and the receiver has taken every port message the sender posted
// (the taken count on the board); otherwise the frame goes by the port. So a frame found in the
// mailbox is older than any port message still pending, and the receiver takes the mailbox first.
// A receiver that has a port message in hand checks the mailbox before it counts that message
// taken, so a sender cannot slip a newer frame into the mailbox in between.
//
// Layout of a frame in the mailbox's bytes: u32 headerBytes | u32 payloadCount |
// u32 payloadBytes[payloadCount] | header (UTF-8 JSON) | payloads (UTF-8, back to back). The
// board slot says how many bytes are in (0: empty). The receiver checks every length against
// that size before reading. A header in the binary layout of sandbox/compact-header.mjs (the
// calls and answers of every tool call) has the top bit of headerBytes set.
import { CompactHeaderError, readCompactHeader, writeCompactHeader } from './compact-header.mjs';

/** Bytes of one direction's mailbox: frames whose UTF-8 could be larger go by the port. */
export const MAILBOX_BYTES = 64 * 1024;
/** Set in headerBytes for a compact header. */
const COMPACT = 0x80000000;

/** Raised for mailbox bytes that cannot be a frame. */
export class MailboxError extends Error {
  constructor(message) {
    super(message);
    this.name = 'MailboxError';
  }
}

/** What both sides of one mailbox hold: the board, the mailbox's bytes, its two board slots. */
class MailboxSide {
  /**
   * @param {Int32Array} board the shared board (sandbox/board.mjs)
   * @param {Buffer} bytes this mailbox's bytes (a view of shared memory)
   * @param {number} fullSlot board slot holding the size of the waiting frame
   * @param {number} takenSlot board slot counting the sender's port messages the receiver took
   */
  constructor(board, bytes, fullSlot, takenSlot) {
    this.board = board;
    this.bytes = bytes;
    this.fullSlot = fullSlot;
    this.takenSlot = takenSlot;
  }
}

/** The sending side of one mailbox. */
export class MailboxSender extends MailboxSide {
  /** Port messages this sender posted (wrapping like the board's Int32). */
  posted = 0;

  /**
   * Puts a frame in the mailbox if the ordering rule allows it and it surely fits; false means
   * the caller posts it by the port (and calls {@link portPosted}).
   * @param {unknown} header
   * @param {readonly string[]} payloads
   */
  tryPut(header, payloads) {
    const { board } = this;
    if (Atomics.load(board, this.fullSlot) !== 0 || Atomics.load(board, this.takenSlot) !== this.posted) return false;
    const count = payloads.length;
    const bytes = this.bytes;
    // UTF-8 takes at most three bytes per UTF-16 unit: a frame under this bound fits.
    let payloadBound = 0;
    for (let i = 0; i < count; i++) payloadBound += 3 * payloads[i].length;
    let at = 8 + 4 * count;
    if (at + payloadBound > bytes.length) return false;
    let headBytes = writeCompactHeader(header, bytes, at, bytes.length - at - payloadBound);
    const compact = headBytes >= 0;
    if (!compact) {
      const head = JSON.stringify(header);
      if (at + 3 * head.length + payloadBound > bytes.length) return false;
      headBytes = bytes.utf8Write(head, at);
    }
    at += headBytes;
    for (let i = 0; i < count; i++) {
      const n = bytes.utf8Write(payloads[i], at);
      bytes.writeUInt32LE(n, 8 + 4 * i);
      at += n;
    }
    bytes.writeUInt32LE(compact ? (headBytes | COMPACT) >>> 0 : headBytes, 0);
    bytes.writeUInt32LE(count, 4);
    // The store publishes the bytes written above (Atomics order plain writes before it).
    Atomics.store(board, this.fullSlot, at);
    return true;
  }

  /** A message went by the port instead. */
  portPosted() {
    this.posted = (this.posted + 1) | 0;
  }
}

/** The receiving side of one mailbox. */
export class MailboxReceiver extends MailboxSide {
  /** A port message taken from the port but not yet handed on (a mailbox frame came first). */
  held = undefined;

  /** Whether a frame waits in the mailbox. */
  get full() {
    return Atomics.load(this.board, this.fullSlot) !== 0;
  }

  /**
   * The next thing in order: `{ mailbox: { header, payloads } }`, `{ port: message }` for the
   * port message `fromPort` (one the caller just received, or undefined when it has none), or
   * undefined when neither has anything. A port message that must wait behind the mailbox's frame
   * is held and handed on by the next call.
   * @param {unknown} fromPort
   */
  take(fromPort) {
    let message = this.held;
    this.held = undefined;
    if (message !== undefined && fromPort !== undefined) throw new MailboxError('two port messages in hand at once');
    if (message === undefined) message = fromPort;
    const size = Atomics.load(this.board, this.fullSlot);
    if (size !== 0) {
      const frame = this.read(size);
      Atomics.store(this.board, this.fullSlot, 0);
      this.held = message;
      return { mailbox: frame };
    }
    if (message === undefined) return undefined;
    Atomics.add(this.board, this.takenSlot, 1);
    return { port: message };
  }

  /** Whether a port message is held behind a mailbox frame already handed on. */
  get holding() {
    return this.held !== undefined;
  }

  read(size) {
    const bytes = this.bytes;
    if (size < 8 || size > bytes.length) throw new MailboxError(`a mailbox frame of ${size} bytes`);
    const word = bytes.readUInt32LE(0);
    const compact = word >= COMPACT;
    const headBytes = compact ? word - COMPACT : word;
    const count = bytes.readUInt32LE(4);
    let at = 8 + 4 * count;
    if (count > (size - 8) / 4 || headBytes > size - at) throw new MailboxError('a mailbox frame whose lengths exceed it');
    let header;
    try {
      header = compact ? readCompactHeader(bytes, at, headBytes) : JSON.parse(bytes.utf8Slice(at, at + headBytes));
    } catch (error) {
      if (error instanceof CompactHeaderError) throw new MailboxError(error.message);
      throw error;
    }
    at += headBytes;
    const payloads = new Array(count);
    for (let i = 0; i < count; i++) {
      const n = bytes.readUInt32LE(8 + 4 * i);
      if (n > size - at) throw new MailboxError('a mailbox frame whose lengths exceed it');
      payloads[i] = bytes.utf8Slice(at, at + n);
      at += n;
    }
    return { header, payloads };
  }
}

/**
 * The two mailboxes of a thread's bridge over one shared buffer of 2 × {@link MAILBOX_BYTES}:
 * the first half host to thread, the second thread to host.
 * @param {SharedArrayBuffer} buffer
 */
export function mailboxBytes(buffer) {
  return { toThread: Buffer.from(buffer, 0, MAILBOX_BYTES), toHost: Buffer.from(buffer, MAILBOX_BYTES, MAILBOX_BYTES) };
}
