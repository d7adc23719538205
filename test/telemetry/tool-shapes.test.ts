/**
 * What the instrumentation builds once per registered tool (span name, kind, the tool's own
 * attributes, the duration metric's attribute sets) follows the registration: a server that
 * re-lists its tool with other classes gets spans with the new classes, under the same name;
 * and a span a sampler dropped still counts in the duration metric.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { instrumentOpenTelemetry } from '../../src/telemetry/index.ts';
import { makePeer, scratchDir, waitUntil } from '../helpers/peers.ts';
import { tracing } from './setup.ts';

test("a tool re-listed with other classes gets the new classes on its spans; its name's span and metric series stay", async () => {
  const t = tracing();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const peer = makePeer(scratchDir(), 'srv', { tools: [{ name: 'fetch', classes: ['web'], result: 'ok' }] });
  const connection = await host.connectServer(peer.config);
  const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  try {
    const inferenceId = host.beginInference({ conversationId: 'relist' });
    assert.equal((await host.dispatch({ inferenceId, name: 'srv--fetch', input: {} })).status, 'completed');
    await connection.request('fixture/control', { op: 'relist', tools: [{ name: 'fetch', classes: ['files', 'shell'], result: 'ok' }] });
    await waitUntil(() => (host.availableTools().find((tool) => tool.name === 'srv--fetch')?.classes.includes('files') ? true : undefined), 'the re-listed classes');
    assert.equal((await host.dispatch({ inferenceId, name: 'srv--fetch', input: {} })).status, 'completed');
    telemetry.flush();
    const spans = t.spans().filter((s) => s.name === 'execute_tool srv--fetch');
    assert.deepEqual(
      spans.map((s) => [s.attributes['toolcell.tool.classes'], s.attributes['toolcell.server.tool'], s.attributes['gen_ai.tool.name']]),
      [
        [['web'], 'fetch', 'srv--fetch'],
        [['files', 'shell'], 'fetch', 'srv--fetch'],
      ],
    );
    const durations = await t.points('gen_ai.execute_tool.duration');
    assert.deepEqual(
      durations.map((p) => [p.attributes, p.count]),
      [[{ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'srv--fetch', 'toolcell.call.outcome': 'completed' }, 2]],
    );
  } finally {
    await telemetry.close();
    await host.close();
  }
});

test('a span the sampler dropped is not exported, yet its call is timed and the refusals are counted', async () => {
  const t = tracing();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ sampler: new AlwaysOffSampler(), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({
    name: 'work',
    description: 'Works',
    inputSchema: { type: 'object' },
    handler: async (args) => (args.fail === true ? { content: [{ type: 'text', text: 'no' }], isError: true } : textResult('done')),
  });
  const telemetry = instrumentOpenTelemetry(host, { tracer: provider.getTracer('off'), meter: t.meter, captureContent: true });
  const inferenceId = host.beginInference({ conversationId: 'sampled-out' });
  assert.equal((await host.dispatch({ inferenceId, name: 'work', input: { secret: 'x' } })).status, 'completed');
  assert.equal((await host.dispatch({ inferenceId, name: 'work', input: { fail: true } })).result.isError, true);
  assert.equal((await host.dispatch({ inferenceId, name: 'nope', input: {} })).status, 'refused');
  assert.equal(telemetry.openSpans, 0);
  telemetry.flush();
  assert.equal(exporter.getFinishedSpans().length, 0);
  const durations = await t.points('gen_ai.execute_tool.duration');
  assert.deepEqual(
    durations.map((p) => [p.attributes['toolcell.call.outcome'], p.attributes['error.type'], p.count]),
    [
      ['completed', undefined, 1],
      ['completed', 'tool_error', 1],
    ],
  );
  assert.deepEqual(await t.points('toolcell.tool.refusals'), [{ attributes: { 'toolcell.refusal.code': 'unknown_tool', 'toolcell.call.origin': 'model' }, value: 1 }]);
  await telemetry.close();
  await host.close();
});
