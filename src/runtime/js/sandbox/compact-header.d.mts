/** Raised for compact header bytes that cannot be a header. */
export class CompactHeaderError extends Error {}
/** Writes an `out` or `res` header in the binary layout; the bytes written, or -1: it goes as JSON. */
export function writeCompactHeader(header: unknown, bytes: Buffer, at: number, room: number): number;
/** The header a compact layout of `length` bytes at `at` holds, as JSON.parse would have made it. */
export function readCompactHeader(bytes: Buffer, at: number, length: number): Record<string, unknown>;
