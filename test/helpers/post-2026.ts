/**
 * One MCP 2026-07-28 request over raw HTTP from a chosen loopback source address (serve without a
 * token tells callers apart by it), with the era's routing headers: the HTTP status and the
 * JSON-RPC answer. Shared by the tests that play several callers against one serve.
 */
import { request as httpRequest } from 'node:http';

/** POSTs `message` (a JSON-RPC request of `method`, naming `name` where it has one) to `url` from `from`. */
export function post2026(url: URL | string, message: Record<string, unknown>, method: string, name: string | undefined, from = '127.0.0.1'): Promise<{ status: number; body: any }> {
  const target = new URL(url);
  const payload = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        localAddress: from,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'MCP-Protocol-Version': '2026-07-28',
          'Mcp-Method': method,
          ...(name !== undefined ? { 'Mcp-Name': name } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          } catch (error) {
            reject(new Error(`not JSON (${res.statusCode}): ${text.slice(0, 200)}: ${(error as Error).message}`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
