// The two frame headers every tool call makes, in a fixed binary layout for the mailboxes
// (sandbox/mailbox.mjs) instead of JSON: the thread's `out` frame carrying calls, and the host's
// `res` frame carrying answers. Every other header, and these two in any other shape (log lines
// or call sites aboard, an extra key, a value outside the layout, a name that is not well-formed
// UTF-16, which JSON would keep and UTF-8 would not), stays JSON.
//
// Why: a header's JSON.stringify on one side and JSON.parse on the other cost about 2 µs per
// frame on the 2-core machine, two frames per call, against a few writes and reads of integers.
//
// What the decoder hands on is the object JSON.parse would have made of the same header, so the
// receivers and their checks (protocol.ts on the host) see no difference:
//   out: { t: 'out', run, c: [id, global, name, ...], l: [] }
//   res: { t: 'res', run, r: [id, ok, errorName | null, ...], ms }   (ms null when not finite, as JSON)
//
// Layout (little-endian): u8 kind (1 out, 2 res) | u32 run | res only: f64 ms | u32 entries |
// per entry (a call, or an answer): u32 id, u8 flag (global, or the answer's kind), i32 nameBytes (-1: null,
// answers only), name (UTF-8).

const OUT = 1;
const RES = 2;
const U32_LIMIT = 2 ** 32;
/** Bytes of an entry before its name. */
const ENTRY_HEAD = 9;

/** Raised for compact header bytes that cannot be a header. */
export class CompactHeaderError extends Error {
  constructor(message) {
    super(message);
    this.name = 'CompactHeaderError';
  }
}

const isU32 = (x) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x < U32_LIMIT;

function keyCount(object) {
  let n = 0;
  for (const key in object) if (Object.hasOwn(object, key)) n++;
  return n;
}

/**
 * Writes `header` at `at` in `bytes` if it has one of the two shapes; returns the bytes written,
 * or -1 when it must go as JSON (also when it might not fit in `room` bytes).
 * @param {any} header
 * @param {Buffer} bytes
 * @param {number} at
 * @param {number} room
 */
export function writeCompactHeader(header, bytes, at, room) {
  if (header === null || typeof header !== 'object' || !isU32(header.run) || keyCount(header) !== 4) return -1;
  let entries;
  let fixed;
  if (header.t === 'out') {
    if (!Array.isArray(header.l) || header.l.length !== 0) return -1;
    entries = header.c;
    fixed = 9;
  } else if (header.t === 'res') {
    if (typeof header.ms !== 'number') return -1;
    entries = header.r;
    fixed = 17;
  } else {
    return -1;
  }
  const bound = entriesBound(entries, header.t === 'res');
  if (bound < 0 || fixed + bound > room) return -1;
  bytes[at] = header.t === 'out' ? OUT : RES;
  bytes.writeUInt32LE(header.run, at + 1);
  if (header.t === 'res') bytes.writeDoubleLE(header.ms, at + 5);
  bytes.writeUInt32LE(entries.length / 3, at + fixed - 4);
  let p = at + fixed;
  for (let i = 0; i < entries.length; i += 3) {
    bytes.writeUInt32LE(entries[i], p);
    bytes[p + 4] = entries[i + 1];
    const name = entries[i + 2];
    const n = name === null ? 0 : bytes.utf8Write(name, p + ENTRY_HEAD);
    bytes.writeInt32LE(name === null ? -1 : n, p + 5);
    p += ENTRY_HEAD + n;
  }
  return p - at;
}

/** The most bytes `entries` ([id, flag, name] triples) can take, or -1 when they do not fit the layout. */
function entriesBound(entries, nullable) {
  if (!Array.isArray(entries) || entries.length % 3 !== 0) return -1;
  let bound = 0;
  for (let i = 0; i < entries.length; i += 3) {
    const name = entries[i + 2];
    // A call's flag is 0 or 1 (global); an answer's 0, 1 or 2 (its kind: session.ts).
    const flag = entries[i + 1];
    if (!isU32(entries[i]) || (flag !== 0 && flag !== 1 && (flag !== 2 || !nullable))) return -1;
    if (name === null ? !nullable : typeof name !== 'string' || !name.isWellFormed()) return -1;
    bound += ENTRY_HEAD + (name === null ? 0 : 3 * name.length);
  }
  return bound;
}

/**
 * The header written at `at` (`length` bytes) by writeCompactHeader; throws CompactHeaderError
 * for bytes that cannot be one.
 * @param {Buffer} bytes
 * @param {number} at
 * @param {number} length
 */
export function readCompactHeader(bytes, at, length) {
  const end = at + length;
  const kind = bytes[at];
  if (kind !== OUT && kind !== RES) throw new CompactHeaderError(`a compact header of unknown kind ${kind}`);
  const fixed = kind === OUT ? 9 : 17;
  if (length < fixed) throw new CompactHeaderError('a compact header shorter than its contents');
  const run = bytes.readUInt32LE(at + 1);
  const count = bytes.readUInt32LE(at + fixed - 4);
  let p = at + fixed;
  if (count > (end - p) / ENTRY_HEAD) throw new CompactHeaderError('a compact header shorter than its contents');
  const entries = new Array(3 * count);
  for (let i = 0; i < entries.length; i += 3) {
    if (p + ENTRY_HEAD > end) throw new CompactHeaderError('a compact header shorter than its contents');
    entries[i] = bytes.readUInt32LE(p);
    entries[i + 1] = bytes[p + 4];
    const n = bytes.readInt32LE(p + 5);
    if (n < (kind === RES ? -1 : 0)) throw new CompactHeaderError('a compact header with a negative length');
    const nameBytes = Math.max(n, 0);
    if (p + ENTRY_HEAD + nameBytes > end) throw new CompactHeaderError('a compact header shorter than its contents');
    entries[i + 2] = n === -1 ? null : bytes.utf8Slice(p + ENTRY_HEAD, p + ENTRY_HEAD + nameBytes);
    p += ENTRY_HEAD + nameBytes;
  }
  if (p !== end) throw new CompactHeaderError('a compact header with bytes after its contents');
  if (kind === OUT) return { t: 'out', run, c: entries, l: [] };
  const ms = bytes.readDoubleLE(at + 5);
  return { t: 'res', run, r: entries, ms: Number.isFinite(ms) ? ms : null };
}
