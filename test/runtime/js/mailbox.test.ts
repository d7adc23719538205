/**
 * The mailboxes beside a QuickJS thread's port (sandbox/mailbox.mjs): frames keep the order they
 * were sent in whichever way each one went, frames that might not fit go by the port, and bytes
 * that cannot be a frame are refused. Played here with a real MessageChannel in one thread, each
 * interleaving written out step by step.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { BOARD_SLOTS, TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT } from '../../../src/runtime/js/sandbox/board.mjs';
import { MAILBOX_BYTES, MailboxError, MailboxReceiver, MailboxSender, mailboxBytes } from '../../../src/runtime/js/sandbox/mailbox.mjs';

function bridge() {
  const board = new Int32Array(new SharedArrayBuffer(4 * BOARD_SLOTS));
  const { toHost } = mailboxBytes(new SharedArrayBuffer(2 * MAILBOX_BYTES));
  const sender = new MailboxSender(board, toHost, TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT);
  const receiver = new MailboxReceiver(board, toHost, TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT);
  const { port1, port2 } = new MessageChannel();
  /** Sends as the thread does: the mailbox when the rule allows, else the port. */
  const send = (n: number, payload = `p${n}`) => {
    const header = { t: 'out', n };
    if (sender.tryPut(header, [payload])) return 'mailbox';
    port1.postMessage([header, [payload]]);
    sender.portPosted();
    return 'port';
  };
  const portMessage = (port: MessagePort) => receiveMessageOnPort(port)?.message;
  /** Takes as the host does: a port message in hand, or none, and whatever the mailbox holds first. */
  const take = (fromPort: unknown = receiver.holding ? undefined : portMessage(port2)) => {
    const got = receiver.take(fromPort);
    if (got === undefined) return undefined;
    if (got.mailbox !== undefined) return (got.mailbox.header as { n: number }).n;
    return (got.port as [{ n: number }])[0].n;
  };
  const close = () => {
    port1.close();
    port2.close();
  };
  return { board, sender, receiver, send, take, portMessage, port2, close };
}

test('a frame crosses the mailbox whole: header, payloads, UTF-8 beyond ASCII', () => {
  const b = bridge();
  assert.ok(b.sender.tryPut({ t: 'out', c: [1, 0, 'noop'] }, ['{"é":"漢字🙂"}', '']));
  assert.equal(b.receiver.full, true);
  const got = b.receiver.take(undefined);
  assert.deepEqual(got, { mailbox: { header: { t: 'out', c: [1, 0, 'noop'] }, payloads: ['{"é":"漢字🙂"}', ''] } });
  assert.equal(b.receiver.full, false);
  b.close();
});

test('while the mailbox is full the next frames go by the port, and arrive after it', () => {
  const b = bridge();
  assert.deepEqual([b.send(1), b.send(2), b.send(3)], ['mailbox', 'port', 'port']);
  assert.deepEqual([b.take(), b.take(), b.take(), b.take()], [1, 2, 3, undefined]);
  b.close();
});

test('an emptied mailbox is not used while port messages are still unread: they are older', () => {
  const b = bridge();
  b.send(1); // mailbox
  b.send(2); // port: the mailbox is full
  assert.equal(b.take(), 1, 'the receiver empties the mailbox; frame 2 is still on the port');
  // Without the taken count, frame 3 would go into the empty mailbox and overtake frame 2.
  assert.equal(b.send(3), 'port');
  assert.deepEqual([b.take(), b.take(), b.take()], [2, 3, undefined]);
  // Every port message taken: the mailbox serves again.
  assert.equal(b.send(4), 'mailbox');
  assert.deepEqual([b.take(), b.take()], [4, undefined]);
  b.close();
});

test('a port message in hand waits behind an older frame found in the mailbox', () => {
  const b = bridge();
  b.send(1); // mailbox
  b.send(2); // port
  // The host's loop receives frame 2 from the port first (its message event), then looks.
  const inHand = b.portMessage(b.port2);
  assert.equal(b.take(inHand), 1, 'the mailbox frame is older');
  assert.equal(b.receiver.holding, true);
  assert.equal(b.send(3), 'port', 'frame 2 is not counted taken while it is held');
  assert.deepEqual([b.take(), b.take(), b.take()], [2, 3, undefined]);
  b.close();
});

test('a frame that might not fit goes by the port', () => {
  const b = bridge();
  // Three bytes per UTF-16 unit is the bound checked: a third of the mailbox, plus the frame's
  // fixed part, cannot be promised to fit.
  assert.equal(b.send(1, 'x'.repeat(Math.floor(MAILBOX_BYTES / 3))), 'port');
  assert.equal(b.take(), 1);
  assert.equal(b.send(2, 'x'.repeat(Math.floor(MAILBOX_BYTES / 3) - 100)), 'mailbox');
  assert.equal(b.take(), 2);
  b.close();
});

test('mailbox bytes that cannot be a frame are refused, not read past their size', () => {
  const b = bridge();
  const bytes = mailboxBytes(new SharedArrayBuffer(2 * MAILBOX_BYTES)).toHost;
  const receiver = new MailboxReceiver(b.board, bytes, TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT);
  // A payload count whose lengths would lie beyond the announced size.
  bytes.writeUInt32LE(2, 0);
  bytes.writeUInt32LE(1000, 4);
  Atomics.store(b.board, TO_HOST_FULL_SLOT, 16);
  assert.throws(() => receiver.take(undefined), MailboxError);
  // A size beyond the mailbox.
  Atomics.store(b.board, TO_HOST_FULL_SLOT, MAILBOX_BYTES + 1);
  assert.throws(() => receiver.take(undefined), MailboxError);
  // A payload longer than what is left.
  bytes.writeUInt32LE(2, 0);
  bytes.writeUInt32LE(1, 4);
  bytes.writeUInt32LE(5000, 8);
  bytes.write('{}', 12);
  Atomics.store(b.board, TO_HOST_FULL_SLOT, 20);
  assert.throws(() => receiver.take(undefined), MailboxError);
  b.close();
});
