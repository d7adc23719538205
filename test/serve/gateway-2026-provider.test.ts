/**
 * serve in front of a 2026-07-28 provider (built with the official SDK v2:
 * test/mcpl/fixtures/v2-server.mjs, `protocolEra: "auto"`), over Streamable HTTP:
 * - a 2026 client gets the provider's own `input_required` — the key the provider chose, its
 *   method and params unchanged, nothing of toolcell's in them — and its retry with the answer
 *   completes the call; two 2026 clients at once each get their own answer back;
 * - a 2025 client (SDK v1, handshake) gets the same provider's `input_required` as an
 *   `elicitation/create` request on its call, and its answer completes the call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const V2_SERVER = join(REPO_ROOT, 'test', 'mcpl', 'fixtures', 'v2-server.mjs');
const REFERENCE_2026 = join(REPO_ROOT, 'test', 'conformance', 'mcp', 'reference-server-2026.ts');

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1.0.0' },
};

let ids = 0;
/** POSTs one 2026-era request; the JSON-RPC answer (the last SSE message when streamed). */
async function post(url: string, method: string, params: Record<string, unknown>, extra: Record<string, string> = {}): Promise<any> {
  const id = ++ids;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': method,
      ...(typeof params.name === 'string' ? { 'Mcp-Name': params.name } : {}),
      ...extra,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }),
  });
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)))
      .find((m) => m.id === id);
  }
  return { ...JSON.parse(text), status: response.status };
}

async function startServe(provider: Record<string, unknown> = { id: 'v2', command: process.execPath, args: [V2_SERVER], cwd: REPO_ROOT, protocolEra: 'auto' }): Promise<{ child: ChildProcess; url: string }> {
  const dir = scratchDir();
  const config = join(dir, 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [provider], codeExecution: false }));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--config', config, '--http', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = /"url":"(http:[^"]+)"[^\n]*serving MCP/.exec(seen);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code} before it was ready:\n${seen}`)));
  });
  return { child, url };
}

test("a 2026 client gets a 2026 provider's input_required through serve under the provider's own key, and each client its own answer", { timeout: 120_000 }, async () => {
  const serve = await startServe();
  try {
    const first = await post(serve.url, 'tools/call', { name: 'v2--greet', arguments: {} });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    assert.deepEqual(Object.keys(first.result.inputRequests), ['who'], 'the key the provider chose');
    const asked = first.result.inputRequests.who;
    assert.equal(asked.method, 'elicitation/create');
    assert.equal(asked.params.message, 'Who is there?');
    assert.deepEqual(asked.params.requestedSchema, { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
    assert.ok(!JSON.stringify(asked).includes('toolcell'), `nothing of toolcell's in the request: ${JSON.stringify(asked)}`);
    assert.equal(typeof first.result.requestState, 'string');

    const done = await post(serve.url, 'tools/call', { name: 'v2--greet', arguments: {}, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } }, requestState: first.result.requestState });
    assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
    assert.equal(done.result.content[0].text, 'hello, Ada');

    // Two clients at once: each answer completes its own client's call.
    const [a, b] = await Promise.all([post(serve.url, 'tools/call', { name: 'v2--greet', arguments: {} }), post(serve.url, 'tools/call', { name: 'v2--greet', arguments: {} })]);
    const [doneA, doneB] = await Promise.all([
      post(serve.url, 'tools/call', { name: 'v2--greet', arguments: {}, inputResponses: { who: { action: 'accept', content: { name: 'Alice' } } }, requestState: a.result.requestState }),
      post(serve.url, 'tools/call', { name: 'v2--greet', arguments: {}, inputResponses: { who: { action: 'accept', content: { name: 'Bob' } } }, requestState: b.result.requestState }),
    ]);
    assert.equal(doneA.result?.content?.[0]?.text, 'hello, Alice', JSON.stringify(doneA));
    assert.equal(doneB.result?.content?.[0]?.text, 'hello, Bob', JSON.stringify(doneB));
  } finally {
    serve.child.kill('SIGTERM');
  }
});

test("a 2025 client gets a 2026 provider's input_required as an elicitation request on its call, and its answer completes the call", { timeout: 120_000 }, async () => {
  const serve = await startServe();
  const client = new Client({ name: 'sdk-2025', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked: any[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return { action: 'accept', content: { name: 'Grace' } };
  });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
    const result = await client.callTool({ name: 'v2--greet', arguments: {} });
    assert.deepEqual(result.content, [{ type: 'text', text: 'hello, Grace' }]);
    assert.equal(asked.length, 1);
    assert.equal(asked[0].message, 'Who is there?');
    assert.deepEqual(asked[0].requestedSchema, { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
    assert.ok(!JSON.stringify(asked[0]).includes('dev.toolcell'), `the era layer's key stays inside serve: ${JSON.stringify(asked[0])}`);
  } finally {
    await client.close();
    serve.child.kill('SIGTERM');
  }
});

test('Mcp-Param headers: serve refuses a tools/call whose headers disagree with its body, and sends them on to a 2026 provider', { timeout: 120_000 }, async () => {
  const backend = spawn(process.execPath, ['--import', 'tsx', REFERENCE_2026, '0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const backendUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    backend.stdout!.on('data', (c: Buffer) => {
      seen += c.toString('utf8');
      const match = /listening (\S+)/.exec(seen);
      if (match) resolve(match[1]!);
    });
    backend.on('exit', (code) => reject(new Error(`the 2026 reference server exited ${code}`)));
  });
  const serve = await startServe({ id: 'ref', url: backendUrl, prefixTools: false, protocolEra: 'auto' });
  const call = (args: Record<string, unknown>, headers: Record<string, string>) => post(serve.url, 'tools/call', { name: 'test_custom_headers', arguments: args }, headers);
  try {
    const missing = await call({ region: 'eu-west', query: 'q' }, {});
    assert.equal(missing.status, 400, JSON.stringify(missing));
    assert.equal(missing.error?.code, -32020);
    assert.match(missing.error.message, /Mcp-Param-Region header is required/);
    const other = await call({ region: 'eu-west', query: 'q' }, { 'Mcp-Param-Region': 'us-east' });
    assert.equal(other.status, 400);
    assert.match(other.error.message, /does not match/);
    const badBase64 = await call({ region: 'Hello', query: 'q' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8?=' });
    assert.equal(badBase64.status, 400);
    assert.match(badBase64.error.message, /Base64/);

    const plain = await call({ region: 'eu-west', priority: 3, query: 'q' }, { 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Priority': '3' });
    assert.equal(plain.result?.resultType, 'complete', JSON.stringify(plain));
    // The provider got the header from serve as well.
    assert.equal(plain.result.content[0].text, 'region=eu-west priority=3 query=q Mcp-Param-Region=eu-west');
    const encoded = `=?base64?${Buffer.from('Zürich', 'utf8').toString('base64')}?=`;
    const unicode = await call({ region: 'Zürich', query: 'q' }, { 'Mcp-Param-Region': encoded });
    assert.equal(unicode.result?.content?.[0]?.text, `region=Zürich priority=undefined query=q Mcp-Param-Region=${encoded}`, JSON.stringify(unicode));
  } finally {
    serve.child.kill('SIGTERM');
    backend.kill('SIGTERM');
  }
});
