/**
 * The binary layout of the two headers every tool call makes (sandbox/compact-header.mjs): the
 * receiver gets what JSON would have given it, every other shape stays JSON, and bytes that
 * cannot be a header are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompactHeaderError, readCompactHeader, writeCompactHeader } from '../../../src/runtime/js/sandbox/compact-header.mjs';
import { BOARD_SLOTS, TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT } from '../../../src/runtime/js/sandbox/board.mjs';
import { MAILBOX_BYTES, MailboxError, MailboxReceiver, MailboxSender, mailboxBytes } from '../../../src/runtime/js/sandbox/mailbox.mjs';

const viaJson = (header: unknown) => JSON.parse(JSON.stringify(header));

function roundTrip(header: unknown): unknown {
  const bytes = Buffer.alloc(4096);
  const n = writeCompactHeader(header, bytes, 16, bytes.length - 16);
  assert.ok(n > 0, `compact: ${JSON.stringify(header)}`);
  return readCompactHeader(bytes, 16, n);
}

/** A small deterministic generator, so that a failure names a case that can be run again. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
}

const NAMES = ['noop', 'search__web', 'é中😀', '한국어', '', 'a'.repeat(300)];

test('out and res headers of any size come back as JSON would give them', () => {
  const next = random(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const u32 = () => pick([0, 1, 7, 2 ** 31, 2 ** 32 - 1, Math.floor(next() * 1e6)]);
  for (let i = 0; i < 500; i++) {
    const count = Math.floor(next() * 5);
    const c: unknown[] = [];
    const r: unknown[] = [];
    for (let k = 0; k < count; k++) {
      c.push(u32(), pick([0, 1]), pick(NAMES));
      r.push(u32(), pick([0, 1]), pick([null, 'TypeError', 'RangeError', '한국어']));
    }
    const out = { t: 'out', run: u32(), c, l: [] };
    const res = { t: 'res', run: u32(), r, ms: pick([0, 12.5, 29_871.25, 1e9, Infinity, NaN]) };
    assert.deepEqual(roundTrip(out), viaJson(out), `case ${i}`);
    assert.deepEqual(roundTrip(res), viaJson(res), `case ${i}`);
  }
});

test('any other shape is left to JSON', () => {
  const bytes = Buffer.alloc(4096);
  for (const header of [
    { t: 'out', run: 1, c: [1, 0, 'noop'], l: ['log'] }, // log lines aboard
    { t: 'out', run: 1, c: [1, 0, 'noop'], l: [], s: [0] }, // call sites aboard
    { t: 'out', run: 1, c: [1, 0, 'noop'], l: [], extra: 1 },
    { t: 'out', run: 1, c: [1.5, 0, 'noop'], l: [] },
    { t: 'out', run: 1, c: [2 ** 32, 0, 'noop'], l: [] },
    { t: 'out', run: 1, c: [1, 2, 'noop'], l: [] },
    { t: 'out', run: 1, c: [1, 0, 'a\ud800'], l: [] }, // JSON keeps a lone surrogate, UTF-8 would not
    { t: 'out', run: -1, c: [], l: [] },
    { t: 'res', run: 1, r: [1, 1, 'x\udc00'], ms: 1 },
    { t: 'res', run: 1, r: [1, 1, 5], ms: 1 },
    { t: 'res', run: 1, r: [1, 1, null], ms: '1' },
    { t: 'res', run: 1, r: [1, 1], ms: 1 },
    { t: 'done', run: 1, ok: true },
    null,
    'out',
  ]) {
    assert.equal(writeCompactHeader(header, bytes, 0, bytes.length), -1, JSON.stringify(header));
  }
  // A header that might not fit the room it is given goes as JSON too (the caller then finds it too large).
  assert.equal(writeCompactHeader({ t: 'out', run: 1, c: [1, 0, 'x'.repeat(100)], l: [] }, bytes, 0, 200), -1);
});

test('bytes that cannot be a compact header are refused, and the mailbox refuses the frame', () => {
  const bytes = Buffer.alloc(256);
  const n = writeCompactHeader({ t: 'res', run: 3, r: [4, 0, 'TypeError', 5, 1, null], ms: 10 }, bytes, 0, bytes.length);
  assert.ok(n > 0);
  assert.throws(() => readCompactHeader(bytes, 0, n - 1), CompactHeaderError, 'cut short');
  assert.throws(() => readCompactHeader(bytes, 0, n + 1), CompactHeaderError, 'trailing bytes');
  assert.throws(() => readCompactHeader(bytes, 0, 4), CompactHeaderError, 'shorter than its fixed part');
  const unknown = Buffer.from(bytes);
  unknown[0] = 9;
  assert.throws(() => readCompactHeader(unknown, 0, n), CompactHeaderError, 'unknown kind');
  const negative = Buffer.from(bytes);
  negative.writeInt32LE(-2, 1 + 4 + 8 + 4 + 5);
  assert.throws(() => readCompactHeader(negative, 0, n), CompactHeaderError, 'negative length');
  const huge = Buffer.from(bytes);
  huge.writeUInt32LE(2 ** 31, 1 + 4 + 8);
  assert.throws(() => readCompactHeader(huge, 0, n), CompactHeaderError, 'a count beyond the bytes');

  // Through a mailbox: the frame is written compact, then its header is damaged in place.
  const board = new Int32Array(new SharedArrayBuffer(4 * BOARD_SLOTS));
  const { toHost } = mailboxBytes(new SharedArrayBuffer(2 * MAILBOX_BYTES));
  const sender = new MailboxSender(board, toHost, TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT);
  const receiver = new MailboxReceiver(board, toHost, TO_HOST_FULL_SLOT, TO_HOST_TAKEN_SLOT);
  const header = { t: 'out', run: 2, c: [1, 0, 'noop', 2, 1, 'print'], l: [] };
  assert.ok(sender.tryPut(header, ['{"i":1}', '"x"']));
  assert.ok(toHost.readUInt32LE(0) >= 0x80000000, 'the header went compact');
  assert.deepEqual(receiver.take(undefined), { mailbox: { header, payloads: ['{"i":1}', '"x"'] } });
  assert.ok(sender.tryPut(header, ['{"i":1}', '"x"']));
  toHost[8 + 4 * 2] = 9; // the header's kind
  assert.throws(() => receiver.take(undefined), MailboxError);
});
