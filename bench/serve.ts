/**
 * Serve-mode benchmark (`npx tsx bench/serve.ts`): what the MCP server face costs per call.
 *
 * 1. Baselines: the same SDK server (createToolServer) answering a no-op built-in over the SDK's
 *    in-memory transport (the MCP protocol with no wire), and the wire's floor: a bare fetch →
 *    node:http round trip on loopback, one request per call as Streamable HTTP makes.
 * 2. Streamable HTTP on loopback (serveHttp), one session, calls one after another.
 * 3. Streamable HTTP, 4 sessions calling at once (each session its own conversation).
 *
 * Ratios are against the baselines measured in the same run. The last line is one JSON object
 * with the figures.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { noopHost, median } from './rig.ts';
import { createToolServer } from '../src/serve/tool-server.ts';
import { ServeSession } from '../src/serve/session.ts';
import { serveHttp } from '../src/serve/http.ts';

const WINDOW_MS = 1500;
const ROUNDS = 3;
const SESSIONS = 4;
const logger = pino({ level: 'silent' });

/** Calls per second over `clients`, each calling in a loop for the window; median of rounds. */
async function rate(clients: Client[]): Promise<number> {
  for (const c of clients) for (let i = 0; i < 200; i++) await c.callTool({ name: 'noop', arguments: { i } }); // warm-up
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let calls = 0;
    const start = performance.now();
    await Promise.all(
      clients.map(async (c) => {
        while (performance.now() - start < WINDOW_MS) {
          await c.callTool({ name: 'noop', arguments: { i: calls } });
          calls += 1;
        }
      }),
    );
    rates.push(calls / ((performance.now() - start) / 1000));
  }
  return median(rates);
}

/** Round trips per second of a bare fetch → node:http exchange (a small JSON body each way). */
async function rawHttpRate(): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const call = async (i: number) => (await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call' }) })).text();
  for (let i = 0; i < 200; i++) await call(i);
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let calls = 0;
    const start = performance.now();
    while (performance.now() - start < WINDOW_MS) await call(calls++);
    rates.push(calls / ((performance.now() - start) / 1000));
  }
  server.closeAllConnections();
  server.close();
  return median(rates);
}

async function main(): Promise<void> {
  const host = noopHost();

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const memoryServer = createToolServer(host, new ServeSession('bench-memory'), logger);
  await memoryServer.connect(serverSide);
  const memoryClient = new Client({ name: 'bench', version: '1' });
  await memoryClient.connect(clientSide);
  const inMemory = await rate([memoryClient]);
  await memoryClient.close();

  const rawHttp = await rawHttpRate();

  const serving = await serveHttp(host, { host: '127.0.0.1', port: 0, conversationPrefix: 'bench', logger });
  const connect = async () => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
    return client;
  };
  const one = await connect();
  const httpOne = await rate([one]);
  const many = [one, ...(await Promise.all(Array.from({ length: SESSIONS - 1 }, connect)))];
  const httpMany = await rate(many);
  await Promise.all(many.map((c) => c.close()));
  await serving.close();
  await host.close();

  const r = (x: number) => Math.round(x);
  console.log(`in-memory MCP (baseline)       ${r(inMemory)} calls/s`);
  console.log(`bare HTTP round trip (floor)   ${r(rawHttp)} round trips/s`);
  console.log(`Streamable HTTP, 1 session     ${r(httpOne)} calls/s  (${(httpOne / rawHttp).toFixed(2)} of the HTTP floor, ${(httpOne / inMemory).toFixed(3)} of in-memory)`);
  console.log(`Streamable HTTP, ${SESSIONS} sessions    ${r(httpMany)} calls/s  (${(httpMany / rawHttp).toFixed(2)} of the HTTP floor)`);
  console.log(
    JSON.stringify({
      bench: 'serve',
      inMemoryCallsPerSec: r(inMemory),
      rawHttpRoundTripsPerSec: r(rawHttp),
      httpOneSessionCallsPerSec: r(httpOne),
      httpOneSessionVsRawHttp: +(httpOne / rawHttp).toFixed(3),
      httpOneSessionVsInMemory: +(httpOne / inMemory).toFixed(3),
      httpSessions: SESSIONS,
      httpManySessionsCallsPerSec: r(httpMany),
      httpManySessionsVsRawHttp: +(httpMany / rawHttp).toFixed(3),
    }),
  );
}

await main();
