/**
 * Raw HTTP/1.1 over a TCP socket, for tests that must do what no well-behaved client does: stall
 * or trickle a body, lie in Content-Length, never finish the headers, pick the local address
 * (127.0.0.2 is another client to serve). The exchange reports what the server sent and when it
 * closed the connection, so a test can assert both the status and the cut.
 */
import { connect, type Socket } from 'node:net';

export interface RawExchange {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** The response's status code, once its status line arrived. */
  status(): number | undefined;
  /**
   * Resolves once one whole response arrived (headers and its Content-Length of body) or the
   * connection closed: the SDK keeps an answered SSE response's connection alive.
   */
  response: Promise<{ text: string; status: number | undefined }>;
  /** Resolves when the server closed (or reset) the connection, with what it had sent. */
  closed: Promise<{ text: string; status: number | undefined; at: number; error?: string }>;
  /** Writes, swallowing errors (the server may have cut us off: that is what tests look for). */
  write(data: string | Buffer): boolean;
}

/** Opens a connection to `url`'s host and port, from `localAddress` when given. */
export function rawConnect(url: string, localAddress?: string): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
    const chunks: Buffer[] = [];
    const text = () => Buffer.concat(chunks).toString('latin1');
    const status = () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text());
      return m ? Number(m[1]) : undefined;
    };
    let error: string | undefined;
    let answered: (value: { text: string; status: number | undefined }) => void = () => undefined;
    const response = new Promise<{ text: string; status: number | undefined }>((done) => (answered = done));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const all = text();
      const headEnd = all.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(all.slice(0, headEnd + 2));
      if (headEnd >= 0 && length && Buffer.byteLength(all, 'latin1') - headEnd - 4 >= Number(length[1])) answered({ text: all, status: status() });
    });
    socket.once('close', () => answered({ text: text(), status: status() }));
    socket.on('error', (e) => {
      error = e.message;
    });
    const closed = new Promise<{ text: string; status: number | undefined; at: number; error?: string }>((done) =>
      socket.once('close', () => done({ text: text(), status: status(), at: Date.now(), ...(error !== undefined ? { error } : {}) })),
    );
    socket.once('connect', () =>
      resolve({
        socket,
        response,
        received: text,
        status,
        closed,
        write: (data) => {
          if (socket.destroyed || !socket.writable) return false;
          return socket.write(data, () => undefined);
        },
      }),
    );
    socket.once('error', reject);
  });
}

/** The request line and headers of a POST to `url` (no body), ending with the blank line unless `unfinished`. */
export function postHead(url: string, headers: Record<string, string | number>, unfinished = false): string {
  const { host, pathname } = new URL(url);
  const lines = [`POST ${pathname} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', 'Accept: application/json, text/event-stream'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return lines.join('\r\n') + (unfinished ? '\r\n' : '\r\n\r\n');
}

/** An `initialize` request body. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
