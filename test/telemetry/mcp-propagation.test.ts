/**
 * Trace context reaches a real MCP server: a traced fixture server (its own process, the
 * official SDK, its own OpenTelemetry SDK) receives `traceparent` / `tracestate` in
 * `params._meta` of `tools/call`, echoes them, and exports its SERVER span over OTLP/HTTP to a
 * loopback receiver — where it is the child of toolcell's span for that call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pino from 'pino';
import { context, createTraceState, ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { instrumentOpenTelemetry } from '../../src/telemetry/index.ts';
import { REPO_ROOT } from '../helpers/peers.ts';
import { startReceiver } from './otlp-receiver.ts';
import { ids, KIND, tracing } from './setup.ts';

const TRACED_SERVER = join(REPO_ROOT, 'fixtures', 'telemetry', 'traced-server.mjs');

test('a server tool call carries traceparent and tracestate in _meta, and the server span joins the trace', async () => {
  const receiver = await startReceiver();
  const t = tracing();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  await host.connectServer({ id: 'tr', command: process.execPath, args: [TRACED_SERVER], env: { TRACED_SERVER_OTLP_URL: `${receiver.url}/v1/traces` } });
  const codeExecution = registerCodeExecution(host, { languages: ['javascript'] });
  const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  try {
    // The framework's agent span continues a remote trace that has vendor state.
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: createTraceState('vendor=abc'),
    });
    const inferenceId = host.beginInference({ conversationId: 'conv-mcp' });
    const [direct, broken, script] = await context.with(remote, () =>
      t.tracer.startActiveSpan('invoke_agent agent', async (agent) => {
        try {
          return await Promise.all([
            host.dispatch({ inferenceId, name: 'tr--lookup', input: { q: 'otel' } }),
            host.dispatch({ inferenceId, name: 'tr--broken', input: {} }),
            host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'return await tools.tr__lookup({ q: "inner" });' } }),
          ]);
        } finally {
          agent.end();
        }
      }),
    );
    assert.equal(direct!.status, 'completed');
    telemetry.flush();
    const spans = t.spans();
    const lookups = spans.filter((s) => s.name === 'execute_tool tr--lookup');
    const tool = lookups.find((s) => s.attributes['toolcell.call.origin'] === 'model')!;
    const inner = lookups.find((s) => s.attributes['toolcell.call.origin'] === 'script')!;

    // What the server received, echoed back: exactly the tool span's context.
    const echoed = JSON.parse(String(direct!.result.content[0]!.text));
    assert.deepEqual(echoed.meta, { traceparent: `00-${ids(tool).traceId}-${ids(tool).spanId}-01`, tracestate: 'vendor=abc' });
    assert.equal(ids(tool).traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
    const innerEcho = (script!.result.structuredContent as any).value;
    assert.equal(innerEcho.meta.traceparent, `00-${ids(inner).traceId}-${ids(inner).spanId}-01`, 'a script call propagates its own span');

    // The MCP conventions: one span per tool call, carrying the MCP client attributes too.
    assert.equal(KIND[tool.kind], 'CLIENT');
    assert.equal(tool.attributes['mcp.method.name'], 'tools/call');
    assert.equal(tool.attributes['network.transport'], 'pipe');
    assert.equal(tool.attributes['mcp.protocol.version'], '2025-11-25');
    assert.equal(tool.attributes['toolcell.server.id'], 'tr');
    assert.equal(tool.attributes['toolcell.server.tool'], 'lookup');
    assert.deepEqual(tool.attributes['toolcell.tool.classes'], ['web']);
    assert.equal(tool.attributes['gen_ai.tool.type'], 'extension', 'a server tool calls out of the host');
    assert.equal(broken!.result.isError, true);
    const [brokenSpan] = spans.filter((s) => s.name === 'execute_tool tr--broken');
    assert.equal(brokenSpan!.attributes['error.type'], 'tool_error');
    assert.equal(brokenSpan!.status.code, SpanStatusCode.ERROR);

    // The server's own spans arrive in the same trace, children of toolcell's spans.
    const received = await receiver.waitFor((s) => s.filter((x) => x.name === 'tools/call lookup').length === 2 && s.some((x) => x.name === 'tools/call broken'), 'the server spans');
    const server = received.find((s) => s.name === 'tools/call lookup' && s.parentSpanId === ids(tool).spanId);
    assert.ok(server, `a server span under ${ids(tool).spanId}: ${JSON.stringify(received.map((s) => [s.name, s.parentSpanId]))}`);
    assert.equal(server.traceId, ids(tool).traceId);
    assert.equal(server.service, 'traced-server');
    assert.equal(server.kind, 2, 'SERVER (OTLP enum)');
    assert.ok(received.some((s) => s.name === 'tools/call lookup' && s.parentSpanId === ids(inner).spanId && s.traceId === ids(inner).traceId));
    assert.deepEqual(receiver.rejected, []);
  } finally {
    await telemetry.close();
    await codeExecution.close();
    await host.close();
    await receiver.close();
  }
});

test('without instrumentation a server tool call carries no _meta', async () => {
  const receiver = await startReceiver();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  await host.connectServer({ id: 'tr', command: process.execPath, args: [TRACED_SERVER], env: { TRACED_SERVER_OTLP_URL: `${receiver.url}/v1/traces` } });
  try {
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'tr--lookup', input: { q: 'x' } });
    assert.deepEqual(JSON.parse(String(outcome.result.content[0]!.text)).meta, {});
  } finally {
    await host.close();
    await receiver.close();
  }
});
