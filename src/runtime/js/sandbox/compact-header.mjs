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
// Layout (little-endian): u8 kind (1 out, 2 res) | u32 run | kind out: u32 calls, then per call
// u32 id, u8 global, u32 nameBytes, name (UTF-8) | kind res: f64 ms, u32 answers, then per
// answer u32 id, u8 ok, i32 nameBytes (-1: null), name (UTF-8).

const OUT = 1;
const RES = 2;
const U32_LIMIT = 2 ** 32;

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
  if (header === null || typeof header !== 'object' || !isU32(header.run)) return -1;
  if (header.t === 'out') return writeOut(header, bytes, at, room);
  if (header.t === 'res') return writeRes(header, bytes, at, room);
  return -1;
}

function writeOut(header, bytes, at, room) {
  const { c, l } = header;
  if (!Array.isArray(c) || c.length % 3 !== 0 || !Array.isArray(l) || l.length !== 0 || keyCount(header) !== 4) return -1;
  let need = 9;
  for (let i = 0; i < c.length; i += 3) {
    if (!isU32(c[i]) || (c[i + 1] !== 0 && c[i + 1] !== 1) || typeof c[i + 2] !== 'string' || !c[i + 2].isWellFormed()) return -1;
    need += 9 + 3 * c[i + 2].length;
  }
  if (need > room) return -1;
  let p = at;
  bytes[p++] = OUT;
  bytes.writeUInt32LE(header.run, p);
  bytes.writeUInt32LE(c.length / 3, p + 4);
  p += 8;
  for (let i = 0; i < c.length; i += 3) {
    bytes.writeUInt32LE(c[i], p);
    bytes[p + 4] = c[i + 1];
    const n = bytes.utf8Write(c[i + 2], p + 9);
    bytes.writeUInt32LE(n, p + 5);
    p += 9 + n;
  }
  return p - at;
}

function writeRes(header, bytes, at, room) {
  const { r, ms } = header;
  if (!Array.isArray(r) || r.length % 3 !== 0 || typeof ms !== 'number' || keyCount(header) !== 4) return -1;
  let need = 17;
  for (let i = 0; i < r.length; i += 3) {
    const name = r[i + 2];
    if (!isU32(r[i]) || (r[i + 1] !== 0 && r[i + 1] !== 1) || (name !== null && (typeof name !== 'string' || !name.isWellFormed()))) return -1;
    need += 9 + (name === null ? 0 : 3 * name.length);
  }
  if (need > room) return -1;
  let p = at;
  bytes[p++] = RES;
  bytes.writeUInt32LE(header.run, p);
  bytes.writeDoubleLE(ms, p + 4);
  bytes.writeUInt32LE(r.length / 3, p + 12);
  p += 16;
  for (let i = 0; i < r.length; i += 3) {
    bytes.writeUInt32LE(r[i], p);
    bytes[p + 4] = r[i + 1];
    const name = r[i + 2];
    const n = name === null ? 0 : bytes.utf8Write(name, p + 9);
    bytes.writeInt32LE(name === null ? -1 : n, p + 5);
    p += 9 + n;
  }
  return p - at;
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
  const need = (p, n) => {
    if (p + n > end) throw new CompactHeaderError('a compact header shorter than its contents');
  };
  need(at, 9);
  const kind = bytes[at];
  const run = bytes.readUInt32LE(at + 1);
  let p = at + 5;
  if (kind === OUT) {
    const count = bytes.readUInt32LE(p);
    p += 4;
    if (count > (end - p) / 9) throw new CompactHeaderError('a compact header shorter than its contents');
    const c = new Array(3 * count);
    for (let i = 0; i < c.length; i += 3) {
      need(p, 9);
      c[i] = bytes.readUInt32LE(p);
      c[i + 1] = bytes[p + 4];
      const n = bytes.readUInt32LE(p + 5);
      need(p + 9, n);
      c[i + 2] = bytes.utf8Slice(p + 9, p + 9 + n);
      p += 9 + n;
    }
    if (p !== end) throw new CompactHeaderError('a compact header with bytes after its contents');
    return { t: 'out', run, c, l: [] };
  }
  if (kind === RES) {
    need(p, 12);
    const ms = bytes.readDoubleLE(p);
    const count = bytes.readUInt32LE(p + 8);
    p += 12;
    if (count > (end - p) / 9) throw new CompactHeaderError('a compact header shorter than its contents');
    const r = new Array(3 * count);
    for (let i = 0; i < r.length; i += 3) {
      need(p, 9);
      r[i] = bytes.readUInt32LE(p);
      r[i + 1] = bytes[p + 4];
      const n = bytes.readInt32LE(p + 5);
      if (n < -1) throw new CompactHeaderError('a compact header with a negative length');
      const bytesOfName = n === -1 ? 0 : n;
      need(p + 9, bytesOfName);
      r[i + 2] = n === -1 ? null : bytes.utf8Slice(p + 9, p + 9 + n);
      p += 9 + bytesOfName;
    }
    if (p !== end) throw new CompactHeaderError('a compact header with bytes after its contents');
    return { t: 'res', run, r, ms: Number.isFinite(ms) ? ms : null };
  }
  throw new CompactHeaderError(`a compact header of unknown kind ${kind}`);
}
