/** Encodes one frame: a JSON header plus raw string payloads. */
export function encodeFrame(header: unknown, payloads: readonly string[]): Buffer;

/** Raised for bytes that cannot be a frame; the stream is unusable afterwards. */
export class FrameError extends Error {}

/** Reassembles frames from arbitrary chunks. */
export class FrameDecoder {
  constructor(maxFrameBytes: number);
  /** Keeps `chunk` by reference: callers must not reuse it. */
  push(chunk: Buffer): void;
  /** The next complete frame, or null when more bytes are needed. Throws {@link FrameError}. */
  next(): { header: unknown; payloads: string[] } | null;
}
