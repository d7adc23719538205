/**
 * `toolcell serve` with `telemetry.otlp`: a real MCP client calls code_execution with its own
 * `traceparent`; serve exports its spans over OTLP/HTTP (JSON) to a loopback receiver this
 * test starts, and the traced fixture server exports its span there too — one trace across
 * the client, serve, the script's call and the server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { startReceiver } from './otlp-receiver.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const TRACED_SERVER = join(REPO_ROOT, 'fixtures', 'telemetry', 'traced-server.mjs');
const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';

test('serve exports every call as a span, and the metrics, to the configured OTLP/HTTP endpoint, under the client span', async () => {
  const receiver = await startReceiver();
  const dir = scratchDir();
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      servers: [{ id: 'tr', command: process.execPath, args: [TRACED_SERVER], env: { TRACED_SERVER_OTLP_URL: `${receiver.url}/v1/traces` } }],
      codeExecution: { languages: ['javascript'] },
      // Metrics pushed every 200 ms, so the test sees them without waiting for serve to stop.
      telemetry: { otlp: { url: receiver.url, headers: { 'x-tenant': 'test' }, metricsIntervalMs: 200 } },
    }),
  );
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', configPath], cwd: REPO_ROOT, stderr: 'ignore' }),
  );
  try {
    const result = await client.callTool({
      name: 'code_execution',
      arguments: { code: 'const r = await tools.tr__lookup({ q: "serve" }); return r.q;' },
      _meta: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, 'agent-framework/conversationId': 'conv_serve' },
    });
    assert.equal((result.structuredContent as any)?.value, 'serve', JSON.stringify(result));
    // Exported in the background while serve keeps running (batches leave within a second).
    const spans = await receiver.waitFor(
      (s) => s.some((x) => x.name === 'execute_tool code_execution') && s.some((x) => x.name === 'execute_tool tr--lookup') && s.some((x) => x.name === 'tools/call lookup'),
      'spans from serve and from the traced server',
    );
    const ce = spans.find((s) => s.name === 'execute_tool code_execution')!;
    const inner = spans.find((s) => s.name === 'execute_tool tr--lookup')!;
    const server = spans.find((s) => s.name === 'tools/call lookup')!;
    assert.equal(ce.service, 'toolcell');
    assert.equal(ce.traceId, CLIENT_TRACE, 'the client trace continues');
    assert.equal(ce.parentSpanId, CLIENT_SPAN, "the client's span is the parent");
    assert.equal(ce.attributes['gen_ai.conversation.id'], 'conv_serve');
    assert.equal(ce.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(inner.parentSpanId, ce.spanId);
    assert.equal(inner.attributes['toolcell.call.origin'], 'script');
    assert.equal(inner.kind, 3, 'CLIENT (OTLP enum)');
    assert.equal(server.service, 'traced-server');
    assert.equal(server.parentSpanId, inner.spanId);
    assert.deepEqual(new Set([ce.traceId, inner.traceId, server.traceId]), new Set([CLIENT_TRACE]));
    assert.deepEqual(receiver.rejected, []);
    assert.ok(receiver.headers.some((h) => h['x-tenant'] === 'test'), 'the configured headers are sent');
    // The documented metrics leave over OTLP too, from the same service.
    const metrics = await receiver.waitForMetrics((m) => m.some((x) => x.name === 'gen_ai.execute_tool.duration'), 'the duration metric from serve');
    assert.equal(metrics.find((m) => m.name === 'gen_ai.execute_tool.duration')!.service, 'toolcell');
  } finally {
    await client.close();
    await receiver.close();
  }
});

test('serve refuses a telemetry config whose URL is not http(s), with its path', () => {
  const dir = scratchDir();
  const configPath = join(dir, 'bad.json');
  writeFileSync(configPath, JSON.stringify({ telemetry: { otlp: { url: 'ftp://collector:4318' } } }));
  const run = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'serve', '--config', configPath], { cwd: REPO_ROOT, encoding: 'utf8', input: '' });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /telemetry\.otlp\.url/);
});
