/**
 * A line dropped for exceeding a transport's size limit, kept only as its size and its two
 * ends while the rest streams past — enough to tell which of our requests it answered.
 */
const EDGE_BYTES = 512;

/**
 * The parts of a dropped, oversized line worth keeping: its size, and its first and last
 * bytes, where a JSON-RPC response's kind and id are (the SDK writes `{"result":…,"jsonrpc":
 * "2.0","id":7}`; other writers put `"jsonrpc"` and `"id"` first).
 */
export class OversizedLine {
  bytes = 0;
  head: Buffer;
  private tail: Buffer;

  constructor(parts: Buffer[]) {
    const first = Buffer.concat(parts);
    this.bytes = first.length;
    this.head = Buffer.from(first.subarray(0, EDGE_BYTES));
    this.tail = Buffer.from(first.subarray(Math.max(0, first.length - EDGE_BYTES)));
  }

  add(piece: Buffer): void {
    this.bytes += piece.length;
    this.tail = piece.length >= EDGE_BYTES ? Buffer.from(piece.subarray(piece.length - EDGE_BYTES)) : Buffer.concat([this.tail, piece]).subarray(-EDGE_BYTES);
  }

  /** The id of the response this line was, when it can be told; undefined for requests, notifications and the unreadable. */
  responseId(): string | number | undefined {
    const head = this.head.toString('utf8');
    const ID = '(-?\\d+|"(?:[^"\\\\]|\\\\.)*")';
    const opening = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"(id|result|error)"/.exec(head)?.[1];
    let id: string | undefined;
    if (opening === 'id') id = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${ID}\\s*,\\s*"(?:result|error)"`).exec(head)?.[1];
    else if (opening !== undefined) id = new RegExp(`"id"\\s*:\\s*${ID}\\s*\\}\\s*\\r?$`).exec(this.tail.toString('utf8'))?.[1];
    return id === undefined ? undefined : (JSON.parse(id) as string | number);
  }
}
