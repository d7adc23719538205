/**
 * serve on stdio, one client speaking both eras over the same pipe (a 2025 session, then a
 * 2026-07-28 request, as a client upgrading in place or a tool sharing the process would): the
 * 2026 request runs in a session of its own that joins the gateway hub beside the 2025 session
 * and leaves it when answered — the 2025 session stays joined, so it is still told of list
 * changes and still gets its provider's log messages; and a provider's input request during the
 * 2026 request's call goes to that request (input_required), not to the 2025 session. serve and
 * the providers (one on the SDK v1, one a 2026 server on the SDK v2) are real processes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ListToolsResultSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { REPO_ROOT, scratchDir } from '../../helpers/peers.ts';
import { until } from './two-clients.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const PROVIDER = join(REPO_ROOT, 'test', 'serve', 'gateway', 'provider.ts');
const V2_SERVER = join(REPO_ROOT, 'test', 'mcpl', 'fixtures', 'v2-server.mjs');
const AnyResult = z.looseObject({});
const META_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'same-pipe-2026', version: '1.0.0' },
};

test('stdio: a 2026 request beside a 2025 session leaves that session in the hub (list changes and log messages still reach it)', { timeout: 120_000 }, async () => {
  const config = join(scratchDir(), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'p', command: process.execPath, args: ['--import', 'tsx', PROVIDER], cwd: REPO_ROOT, prefixTools: false, required: true }], codeExecution: false }));
  const client = new Client({ name: 'two-eras', version: '1.0.0' });
  let listChanged = 0;
  const logs: unknown[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void (listChanged += 1));
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => void logs.push(n.params.data));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'ignore' }));
  try {
    // The same pipe, a request of the other era: answered by serve's 2026 endpoint.
    const modern = await client.request({ method: 'tools/list', params: { _meta: META_2026 } }, ListToolsResultSchema.passthrough());
    assert.equal((modern as { resultType?: unknown }).resultType, 'complete', 'answered as a 2026 request');
    assert.ok(modern.tools.some((t) => t.name === 'grow'));

    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'log', arguments: {} });
    await until("the 2025 session to get the provider's log messages", () => logs.includes('first'));
    await client.callTool({ name: 'grow', arguments: {} });
    await until('the 2025 session to be told the tool list changed', () => listChanged > 0);
  } finally {
    await client.close();
  }
});

test("stdio: a 2026 provider's input request during the same pipe's 2026 call is that call's input_required, never the 2025 session's elicitation", { timeout: 120_000 }, async () => {
  const config = join(scratchDir(), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'v2', command: process.execPath, args: [V2_SERVER], cwd: REPO_ROOT, protocolEra: 'auto', required: true }], codeExecution: false }));
  const client = new Client({ name: 'two-eras', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked2025: unknown[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked2025.push(request.params);
    return { action: 'accept', content: { name: 'the 2025 session' } };
  });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'ignore' }));
  try {
    const meta = { ...META_2026, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const first = (await client.request({ method: 'tools/call', params: { name: 'v2--greet', arguments: {}, _meta: meta } }, AnyResult)) as any;
    assert.equal(first.resultType, 'input_required', `the 2026 call asks its own client: ${JSON.stringify(first)}`);
    assert.deepEqual(Object.keys(first.inputRequests), ['who']);
    assert.deepEqual(asked2025, [], "the 2025 session is not asked for the 2026 request's input");
    const done = (await client.request(
      { method: 'tools/call', params: { name: 'v2--greet', arguments: {}, _meta: meta, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } }, requestState: first.requestState } },
      AnyResult,
    )) as any;
    assert.equal(done.content?.[0]?.text, 'hello, Ada', JSON.stringify(done));
    // The 2025 session's own call is still its own.
    assert.deepEqual((await client.callTool({ name: 'v2--greet', arguments: {} })).content, [{ type: 'text', text: 'hello, the 2025 session' }]);
  } finally {
    await client.close();
  }
});
