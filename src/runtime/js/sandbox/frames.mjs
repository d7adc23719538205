// Length-prefixed frames between the host and a sandbox process. Plain JavaScript so the
// sandbox process runs it under bare node; the host imports the same file (see frames.d.mts).
//
// Layout: u32 bodyBytes | u32 headerBytes | u32 payloadCount | u32 payloadBytes[payloadCount]
//         | header (UTF-8 JSON) | payloads (UTF-8, back to back)
// Large strings (code, tool arguments and results, log lines) travel as payloads so they are
// never escaped inside the JSON header.

const FIXED = 12;

/**
 * Encodes one frame. `header` must be JSON-serializable; `payloads` are raw strings.
 * @param {unknown} header
 * @param {readonly string[]} payloads
 * @returns {Buffer}
 */
export function encodeFrame(header, payloads) {
  const head = JSON.stringify(header);
  const count = payloads.length;
  // UTF-8 never takes more than three bytes per UTF-16 unit, so this bound lets every string
  // be written in one pass without measuring it first.
  let capacity = FIXED + 4 * count + head.length * 3;
  for (let i = 0; i < count; i++) capacity += payloads[i].length * 3;
  const buf = Buffer.allocUnsafe(capacity);
  let offset = FIXED + 4 * count;
  const headBytes = buf.write(head, offset, 'utf8');
  offset += headBytes;
  for (let i = 0; i < count; i++) {
    const bytes = buf.write(payloads[i], offset, 'utf8');
    buf.writeUInt32LE(bytes, FIXED + 4 * i);
    offset += bytes;
  }
  buf.writeUInt32LE(offset - 4, 0);
  buf.writeUInt32LE(headBytes, 4);
  buf.writeUInt32LE(count, 8);
  return buf.subarray(0, offset);
}

/** Raised for bytes that cannot be a frame; the stream is unusable afterwards. */
export class FrameError extends Error {
  constructor(message) {
    super(message);
    this.name = 'FrameError';
  }
}

/** Reassembles frames from arbitrary chunks. */
export class FrameDecoder {
  /** @param {number} maxFrameBytes frames larger than this are rejected as corrupt */
  constructor(maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
    /** @type {Buffer[]} */
    this.chunks = [];
    this.buffered = 0;
  }

  /** @param {Buffer} chunk kept by reference: callers must not reuse it */
  push(chunk) {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /**
   * The next complete frame, or null when more bytes are needed.
   * @returns {{ header: unknown, payloads: string[] } | null}
   */
  next() {
    if (this.buffered < 4) return null;
    const first = this.chunks[0].length >= 4 ? this.chunks[0] : this.gather(4);
    const body = first.readUInt32LE(0);
    if (body < FIXED - 4 || body > this.maxFrameBytes) {
      throw new FrameError(`frame of ${body} bytes is outside 8..${this.maxFrameBytes}`);
    }
    if (this.buffered < body + 4) return null;
    const frame = this.gather(body + 4);
    this.consume(body + 4);
    return decodeBody(frame);
  }

  /** Joins leading chunks until at least `bytes` are contiguous in chunks[0]. */
  gather(bytes) {
    if (this.chunks[0].length >= bytes) return this.chunks[0];
    const joined = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [joined];
    return joined;
  }

  consume(bytes) {
    const head = this.chunks[0];
    if (head.length === bytes) this.chunks.shift();
    else this.chunks[0] = head.subarray(bytes);
    this.buffered -= bytes;
  }
}

function decodeBody(frame) {
  const end = frame.readUInt32LE(0) + 4;
  const headBytes = frame.readUInt32LE(4);
  const count = frame.readUInt32LE(8);
  let offset = FIXED + 4 * count;
  if (offset > end) throw new FrameError(`frame declares ${count} payloads but is only ${end} bytes`);
  const headEnd = offset + headBytes;
  if (headEnd > end) throw new FrameError('frame header overruns the frame');
  let header;
  try {
    header = JSON.parse(frame.toString('utf8', offset, headEnd));
  } catch (error) {
    throw new FrameError(`frame header is not JSON: ${error.message}`);
  }
  offset = headEnd;
  const payloads = new Array(count);
  for (let i = 0; i < count; i++) {
    const bytes = frame.readUInt32LE(FIXED + 4 * i);
    if (offset + bytes > end) throw new FrameError('frame payload overruns the frame');
    payloads[i] = frame.toString('utf8', offset, offset + bytes);
    offset += bytes;
  }
  if (offset !== end) throw new FrameError('frame has trailing bytes');
  return { header, payloads };
}
