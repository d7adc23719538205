/**
 * A 2026-07-28 client as raw HTTP, for tests of serve's 2026 endpoint: one request (`post`),
 * and a `subscriptions/listen` stream read as its SSE messages arrive (`listen`).
 */
import assert from 'node:assert/strict';
import { until } from '../gateway/two-clients.ts';

export interface Stream {
  /** Every message received on the stream so far, in order. */
  messages: any[];
  /** The acknowledgement (first message), once it came. */
  acknowledged: Promise<any>;
  close(): void;
}

export const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1.0.0' },
};

let ids = 0;
/** POSTs one request of the era; its HTTP status and JSON-RPC answer (the last SSE message when streamed). */
export async function post(url: string, method: string, params: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const id = ++ids;
  const name = (params.name ?? params.uri) as string | undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, ...(name !== undefined ? { 'Mcp-Name': name } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta: META, ...params } }),
  });
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return { status: response.status, body: JSON.parse(text) };
  const messages = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  return { status: response.status, body: messages.find((m) => m.id === id) };
}

/** Opens a `subscriptions/listen` stream and reads its SSE messages as they come. */
export async function listen(url: URL, notifications: Record<string, unknown>): Promise<Stream & { id: number }> {
  const id = ++ids;
  const aborted = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    signal: aborted.signal,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'subscriptions/listen' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: META, notifications } }),
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
  const messages: any[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let partial = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        partial += decoder.decode(chunk, { stream: true });
        const lines = partial.split('\n');
        partial = lines.pop()!;
        for (const line of lines) if (line.startsWith('data: ')) messages.push(JSON.parse(line.slice(6)));
      }
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
    }
  })();
  const acknowledged = until(`stream ${id}'s acknowledgement`, () => messages.length > 0).then(() => messages[0]);
  return { id, messages, acknowledged, close: () => aborted.abort() };
}

