/**
 * Collects one run's stdout and stderr from the interpreter's pipes. The interpreter ends each
 * run by writing a marker on both pipes after flushing, so everything written before the run
 * ended (by Python, C code or a subprocess) is attributed to it, in pipe order. Output beyond
 * the cap is counted as dropped, never buffered.
 */

export type StreamName = 'stdout' | 'stderr';

/** The end-of-run marker bootstrap.py writes; the run's random token keeps ordinary output from matching. */
export function endMarker(token: string, run: number): Buffer {
  return Buffer.from(`\x1etoolcell:${token}:${run}\x1e`, 'latin1');
}

const MARKER_START = 0x1e;

/** Finds the marker in a byte stream that may split it across chunks. */
class MarkerScanner {
  #pending: Buffer | null = null;
  ended = false;

  constructor(private readonly marker: Buffer) {}

  /** Returns the content bytes this chunk completes; sets `ended` once the marker is seen. */
  feed(chunk: Buffer): Buffer {
    if (this.ended) return EMPTY;
    const data = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = null;
    const at = data.indexOf(this.marker);
    if (at >= 0) {
      this.ended = true;
      return data.subarray(0, at);
    }
    // Hold back a tail that could be the start of a marker split across chunks.
    const from = Math.max(0, data.length - this.marker.length + 1);
    const hold = data.indexOf(MARKER_START, from);
    if (hold < 0) return data;
    this.#pending = Buffer.from(data.subarray(hold));
    return data.subarray(0, hold);
  }

  /** Content still held back, for when the stream ends without a marker (a crash). */
  drain(): Buffer {
    const rest = this.#pending ?? EMPTY;
    this.#pending = null;
    return rest;
  }
}

const EMPTY = Buffer.alloc(0);

/** Cuts a trailing incomplete UTF-8 sequence left by truncation. */
export function trimPartialUtf8(buf: Buffer): Buffer {
  let i = buf.length - 1;
  let continuation = 0;
  while (i >= 0 && continuation < 3 && (buf[i]! & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  if (i < 0) return buf;
  const lead = buf[i]!;
  const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return need > continuation ? buf.subarray(0, i) : buf;
}

export interface CapturedOutput {
  stdout: string;
  stderr: string;
  truncated: boolean;
}

/** Output of one run: both streams, a shared byte cap, and whether both end markers arrived. */
export class RunOutput {
  #scanners: Record<StreamName, MarkerScanner>;
  #chunks: Record<StreamName, Buffer[]> = { stdout: [], stderr: [] };
  #used = 0;
  #truncated = false;
  #cut: StreamName | null = null;

  constructor(
    marker: Buffer,
    private readonly capBytes: number,
    /** Told each kept piece of text as it arrives (live output); a multi-byte character split across chunks may show as U+FFFD here, never in the result. */
    private readonly onText?: (stream: StreamName, text: string) => void,
  ) {
    this.#scanners = { stdout: new MarkerScanner(marker), stderr: new MarkerScanner(marker) };
  }

  feed(stream: StreamName, chunk: Buffer): void {
    this.#keep(stream, this.#scanners[stream].feed(chunk));
  }

  /** Both streams have reached the run's end marker. */
  get complete(): boolean {
    return this.#scanners.stdout.ended && this.#scanners.stderr.ended;
  }

  finish(): CapturedOutput {
    for (const stream of ['stdout', 'stderr'] as const) this.#keep(stream, this.#scanners[stream].drain());
    const decode = (stream: StreamName) => {
      const buf = Buffer.concat(this.#chunks[stream]);
      return (this.#cut === stream ? trimPartialUtf8(buf) : buf).toString('utf8');
    };
    return { stdout: decode('stdout'), stderr: decode('stderr'), truncated: this.#truncated };
  }

  #keep(stream: StreamName, bytes: Buffer): void {
    if (bytes.length === 0) return;
    const room = this.capBytes - this.#used;
    if (bytes.length > room) this.#truncated = true;
    if (room <= 0) return;
    if (bytes.length > room) this.#cut = stream;
    const kept = bytes.length > room ? bytes.subarray(0, room) : bytes;
    this.#chunks[stream].push(kept);
    this.#used += kept.length;
    this.onText?.(stream, kept.toString('utf8'));
  }
}
