/**
 * Spans in-process, through the SDK's in-memory exporter: a real JavaScript code_execution
 * whose parallel inner calls end in a success, an error result, an approval hold and a
 * refusal gives the exact span tree; a model call nests under the span active at dispatch;
 * metrics count durations and refusals; content stays off spans unless opted in, and then
 * is redacted and bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { diag, DiagLogLevel, SpanStatusCode, type Attributes, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ToolHost, type ToolHostOptions } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { instrumentOpenTelemetry } from '../../src/telemetry/index.ts';
import { waitUntil } from '../helpers/peers.ts';
import { ids, KIND, seconds, tracing } from './setup.ts';

const MODEL_CALL_ID = 'toolu_01A9bcdefghijklmnopq';

/** A host with a `work` built-in (error result on `fail`), a policy refusing `forbidden`, and a gate holding `hold`. */
function makeHost(extra: ToolHostOptions = {}) {
  const holds = new Map<string, (approved: boolean) => void>();
  const host = new ToolHost({
    logger: pino({ level: 'silent' }),
    policy: ({ input }) => (input.forbidden === true ? 'forbidden by the test policy' : undefined),
    approvalGate: {
      required: (call) => call.input.hold === true,
      decide: (request) => new Promise<boolean>((resolve) => holds.set(request.toolCallId, resolve)),
    },
    ...extra,
  });
  host.registerTool({
    name: 'work',
    description: 'Works',
    inputSchema: { type: 'object' },
    classes: ['shell'],
    handler: async (args) =>
      args.fail === true ? { content: [{ type: 'text', text: 'no such file' }], isError: true } : textResult(`done ${String(args.n)}`),
  });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  return { host, holds, events };
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const statusOf = (s: ReadableSpan) => (s.status.code === SpanStatusCode.ERROR ? `ERROR ${s.status.message}` : s.status.code === SpanStatusCode.OK ? 'OK' : 'UNSET');

test('a script with parallel inner calls gives the exact span tree under the agent span', async () => {
  const t = tracing();
  const { host, holds, events } = makeHost();
  const codeExecution = registerCodeExecution(host, { languages: ['javascript'] });
  const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  const stream = host.openStream('conv-1');
  const inferenceId = stream.beginInference();
  const code = [
    'const settled = await Promise.allSettled([',
    '  tools.work({ n: 1 }),',
    '  tools.work({ n: 2, fail: true }),',
    '  tools.work({ n: 3, hold: true }),',
    '  tools.work({ n: 4, forbidden: true }),',
    ']);',
    'return settled.map((s) => s.status);',
  ].join('\n');
  const running = t.tracer.startActiveSpan('invoke_agent test-agent', async (agent) => {
    try {
      return await host.dispatch({ inferenceId, modelCallId: MODEL_CALL_ID, name: 'code_execution', input: { code } });
    } finally {
      agent.end();
    }
  });
  const [heldId] = await waitUntil(() => (holds.size > 0 ? [...holds.keys()] : undefined), 'the held call waits for approval');
  holds.get(heldId!)!(true);
  const outcome = await running;
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.result));
  assert.deepEqual((outcome.result.structuredContent as any).value, ['fulfilled', 'rejected', 'fulfilled', 'rejected']);

  telemetry.flush();
  const spans = t.spans();
  const [agent] = byName(spans, 'invoke_agent test-agent');
  const [ce] = byName(spans, 'execute_tool code_execution');
  const work = byName(spans, 'execute_tool work');
  assert.ok(agent && ce);
  assert.equal(spans.length, 5, spans.map((s) => s.name).join(', '));
  assert.equal(work.length, 3, 'the refused call has no span');
  // Which `work` span is which: the host's own lifecycle events map call ids to arguments.
  const nOf = new Map(events.filter((e) => e.phase === 'started' && e.tool === 'work').map((e) => [e.toolCallId, (e.input as any).n as number]));
  const span = (n: number) => work.find((s) => nOf.get(s.attributes['gen_ai.tool.call.id'] as string) === n)!;

  // Parents: the agent is the root; code_execution under it; every inner call under code_execution.
  assert.equal(ids(agent).parent, undefined);
  assert.equal(ids(ce).parent, ids(agent).spanId);
  for (const s of work) {
    assert.equal(ids(s).parent, ids(ce).spanId, `${s.attributes['gen_ai.tool.call.id']} is a child of code_execution`);
    assert.equal(ids(s).traceId, ids(agent).traceId);
  }

  const ceId = outcome.toolCallId!;
  assert.equal(ceId, MODEL_CALL_ID, 'the model id qualifies and is reused');
  assert.equal(KIND[ce.kind], 'INTERNAL');
  assert.deepEqual(ce.attributes, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'code_execution',
    'gen_ai.tool.type': 'function',
    'gen_ai.tool.call.id': ceId,
    'gen_ai.conversation.id': 'conv-1',
    'toolcell.call.origin': 'model',
    'toolcell.inference.id': inferenceId,
    'toolcell.tool.classes': ['shell'],
    'toolcell.call.outcome': 'completed',
  });
  assert.equal(statusOf(ce), 'UNSET');
  // The refused call is not a span but an event on the span it would have joined.
  assert.deepEqual(ce.events.map((e) => [e.name, e.attributes]), [
    ['toolcell.call.refused', { 'gen_ai.tool.name': 'work', 'toolcell.refusal.code': 'policy', 'toolcell.refusal.message': 'Tool "work" was refused by host policy: forbidden by the test policy' }],
  ]);

  const inner = (n: number, outcomeName: string, extra: Attributes = {}): Attributes => ({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'work',
    'gen_ai.tool.type': 'function',
    'gen_ai.tool.call.id': span(n).attributes['gen_ai.tool.call.id'],
    'gen_ai.conversation.id': 'conv-1',
    'toolcell.call.origin': 'script',
    'toolcell.inference.id': inferenceId,
    'toolcell.tool.classes': ['shell'],
    'toolcell.call.parent_id': ceId,
    'toolcell.call.outcome': outcomeName,
    ...extra,
  });
  assert.deepEqual(span(1).attributes, inner(1, 'completed'));
  assert.equal(statusOf(span(1)), 'UNSET');
  assert.deepEqual(span(1).events, []);

  assert.deepEqual(span(2).attributes, inner(2, 'completed', { 'error.type': 'tool_error' }));
  assert.equal(statusOf(span(2)), 'ERROR the tool returned an error result');

  assert.deepEqual(span(3).attributes, inner(3, 'completed'));
  assert.equal(statusOf(span(3)), 'UNSET');
  assert.deepEqual(span(3).events.map((e) => [e.name, e.attributes ?? {}]), [
    ['toolcell.approval.requested', {}],
    ['toolcell.approval.decided', { 'toolcell.approval.approved': true }],
  ]);
  // The held call's span covers its wait; the code_execution span ends after it.
  assert.ok(seconds(span(3).endTime) <= seconds(ce.endTime));
  assert.ok(seconds(span(3).events[1]!.time) >= seconds(span(3).events[0]!.time));

  // Every call that opened is exactly one span, and no other span claims a call id.
  const opened = [...new Set(events.map((e) => e.toolCallId))].sort();
  assert.deepEqual(spans.map((s) => s.attributes['gen_ai.tool.call.id']).filter(Boolean).sort(), opened);

  // Metrics: one duration per execution (per tool and outcome), one refusal by code.
  const durations = await t.points('gen_ai.execute_tool.duration');
  const count = (tool: string, error?: string) =>
    durations.filter((p) => p.attributes['gen_ai.tool.name'] === tool && p.attributes['error.type'] === error).reduce((n, p) => n + p.count!, 0);
  assert.equal(count('code_execution'), 1);
  assert.equal(count('work'), 2);
  assert.equal(count('work', 'tool_error'), 1);
  assert.deepEqual(await t.points('toolcell.tool.refusals'), [{ attributes: { 'toolcell.refusal.code': 'policy', 'toolcell.call.origin': 'script' }, value: 1 }]);

  stream.end();
  await telemetry.close();
  await codeExecution.close();
  await host.close();
});

test("on a warm sandbox, each script's calls are children of their own code_execution, not of ambient context", async () => {
  const t = tracing();
  const { host } = makeHost();
  const codeExecution = registerCodeExecution(host, { languages: ['javascript'] });
  const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  const inferenceId = host.beginInference({ conversationId: 'conv-warm' });
  // The sandbox process is spawned inside the first execution, so its message handlers
  // inherit that execution's context; the second execution's calls must not.
  const first = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'return await tools.work({ n: 1 });' } });
  const second = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'return await tools.work({ n: 2 });' } });
  assert.equal(first.status, 'completed');
  assert.equal(second.status, 'completed');
  telemetry.flush();
  const spans = t.spans();
  const execution = (id: string) => spans.find((s) => s.attributes['gen_ai.tool.call.id'] === id)!;
  for (const outcome of [first, second]) {
    const [inner] = spans.filter((s) => s.attributes['toolcell.call.parent_id'] === outcome.toolCallId);
    assert.equal(ids(inner!).parent, ids(execution(outcome.toolCallId!)).spanId);
    assert.equal(ids(inner!).traceId, ids(execution(outcome.toolCallId!)).traceId);
  }
  await telemetry.close();
  await codeExecution.close();
  await host.close();
});

test('a model call is the child of the span active at dispatch; without one it is a root', async () => {
  const t = tracing();
  const { host } = makeHost();
  const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  const inferenceId = host.beginInference({ conversationId: 'conv-2' });
  await t.tracer.startActiveSpan('chat model-x', async (chat) => {
    // An unrelated await first: the parent must come from the async context, not from a stack.
    await new Promise((resolve) => setImmediate(resolve));
    const outcome = await host.dispatch({ inferenceId, name: 'work', input: { n: 7 } });
    assert.equal(outcome.status, 'completed');
    const refused = await host.dispatch({ inferenceId, name: 'wrok', input: {} });
    assert.equal(refused.status, 'refused');
    chat.end();
  });
  await host.dispatch({ inferenceId, name: 'work', input: { n: 8 } });
  telemetry.flush();
  const spans = t.spans();
  const [chat] = byName(spans, 'chat model-x');
  const [nested, root] = byName(spans, 'execute_tool work');
  assert.equal(ids(nested!).parent, ids(chat!).spanId);
  assert.equal(ids(nested!).traceId, ids(chat!).traceId);
  assert.equal(nested!.attributes['toolcell.call.origin'], 'model');
  assert.equal(ids(root!).parent, undefined, 'no active span: a root');
  assert.notEqual(ids(root!).traceId, ids(chat!).traceId);
  // The refused model call shows on the caller's span, with the host's suggestion.
  assert.deepEqual(chat!.events.map((e) => [e.name, e.attributes?.['toolcell.refusal.code']]), [['toolcell.call.refused', 'unknown_tool']]);
  assert.match(String(chat!.events[0]!.attributes?.['toolcell.refusal.message']), /work/);
  assert.deepEqual(await t.points('toolcell.tool.refusals'), [{ attributes: { 'toolcell.refusal.code': 'unknown_tool', 'toolcell.call.origin': 'model' }, value: 1 }]);
  await telemetry.close();
  await host.close();
});

test('the tool runs with its span active, so spans it makes are its children', async () => {
  const t = tracing();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({
    name: 'query',
    description: 'Queries',
    inputSchema: { type: 'object' },
    handler: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      t.tracer.startSpan('db.query').end();
      return textResult('rows');
    },
  });
  const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'query', input: {} });
  telemetry.flush();
  const [tool] = byName(t.spans(), 'execute_tool query');
  const [db] = byName(t.spans(), 'db.query');
  assert.equal(ids(db!).parent, ids(tool!).spanId);
  await telemetry.close();
  await host.close();
});

test('the approval wait is inside the span, between its events, and outside the duration metric', async () => {
  const t = tracing();
  const { host, holds } = makeHost();
  const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  const outcome = host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'work', input: { hold: true, n: 1 } });
  await waitUntil(() => holds.size === 1 || undefined, 'the gate was asked');
  const askedAt = performance.now();
  await waitUntil(() => performance.now() - askedAt > 300 || undefined, 'a human-sized wait');
  [...holds.values()][0]!(true);
  assert.equal((await outcome).status, 'completed');
  telemetry.flush();
  const [held] = byName(t.spans(), 'execute_tool work');
  const [requested, decided] = held!.events;
  assert.ok(seconds(decided!.time) - seconds(requested!.time) >= 0.3, 'the events bracket the wait');
  assert.ok(seconds(held!.endTime) - seconds(held!.startTime) >= 0.3, 'the span covers the wait');
  const [point] = await t.points('gen_ai.execute_tool.duration');
  assert.equal(point!.count, 1);
  assert.ok(point!.value < 0.25, `the duration metric (${point!.value}s) counts execution only`);
  assert.ok(Math.abs(point!.value - (seconds(held!.endTime) - seconds(decided!.time))) < 0.001, 'it is the time from the decision to the end');
  await telemetry.close();
  await host.close();
});

test('terminal phases: a throwing tool is failed, a refused approval and a stream end are aborted', async () => {
  const t = tracing();
  const { host, holds } = makeHost();
  host.registerTool({ name: 'explode', description: 'Throws', inputSchema: { type: 'object' }, handler: async () => { throw new Error('kaboom'); } });
  const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  const stream = host.openStream('conv-3');
  const inferenceId = stream.beginInference();
  assert.equal((await host.dispatch({ inferenceId, name: 'explode', input: {} })).status, 'failed');
  const denied = host.dispatch({ inferenceId, name: 'work', input: { hold: true, n: 1 } });
  await waitUntil(() => holds.size === 1 || undefined, 'first hold');
  [...holds.values()][0]!(false);
  assert.equal((await denied).status, 'aborted');
  const waiting = host.dispatch({ inferenceId, name: 'work', input: { hold: true, n: 2 } });
  await waitUntil(() => holds.size === 2 || undefined, 'second hold');
  stream.end('user left');
  assert.equal((await waiting).status, 'aborted');

  telemetry.flush();
  const [explode] = byName(t.spans(), 'execute_tool explode');
  assert.equal(explode!.attributes['error.type'], 'failed');
  assert.equal(explode!.attributes['toolcell.call.outcome'], 'failed');
  assert.equal(statusOf(explode!), 'ERROR kaboom');
  const [refused, abandoned] = byName(t.spans(), 'execute_tool work');
  assert.equal(refused!.attributes['error.type'], 'approval_refused');
  assert.deepEqual(refused!.events.map((e) => [e.name, e.attributes?.['toolcell.approval.approved']]), [
    ['toolcell.approval.requested', undefined],
    ['toolcell.approval.decided', false],
  ]);
  assert.equal(abandoned!.attributes['error.type'], 'aborted');
  assert.equal(statusOf(abandoned!), 'ERROR user left');
  assert.deepEqual(abandoned!.events.map((e) => e.name), ['toolcell.approval.requested'], 'no decision was taken');
  // Calls that never ran have no execution duration.
  const durations = await t.points('gen_ai.execute_tool.duration');
  assert.deepEqual(durations.map((p) => [p.attributes['gen_ai.tool.name'], p.attributes['toolcell.call.outcome'], p.attributes['error.type'], p.count]), [['explode', 'failed', 'failed', 1]]);
  await telemetry.close();
  await host.close();
});

test('content stays off spans by default; opted in, it is redacted and bounded like observer input', async () => {
  const t = tracing();
  const { host } = makeHost({ inputBoundBytes: 512 });
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const input = { n: 1, api_key: 'sk-live-123', note: 'x'.repeat(2000) };
  let telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  await host.dispatch({ inferenceId, name: 'work', input });
  telemetry.uninstall();
  telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter, captureContent: true });
  await host.dispatch({ inferenceId, name: 'work', input });
  await host.dispatch({ inferenceId, name: 'work', input: { n: 2 } });
  telemetry.flush();
  const [plain, captured, small] = byName(t.spans(), 'execute_tool work');
  for (const key of Object.keys(plain!.attributes)) assert.ok(!/arguments|result/.test(key), `no content by default (${key})`);
  const args = JSON.parse(captured!.attributes['gen_ai.tool.call.arguments'] as string);
  assert.equal(args.api_key, '[redacted]');
  assert.equal(args.n, 1);
  assert.ok(Buffer.byteLength(captured!.attributes['gen_ai.tool.call.arguments'] as string) <= 512);
  assert.equal(captured!.attributes['toolcell.tool.call.arguments_altered'], true);
  assert.deepEqual(JSON.parse(small!.attributes['gen_ai.tool.call.arguments'] as string), { n: 2 });
  assert.equal(small!.attributes['toolcell.tool.call.arguments_altered'], undefined);
  assert.deepEqual(JSON.parse(small!.attributes['gen_ai.tool.call.result'] as string), { content: [{ type: 'text', text: 'done 2' }] });
  await telemetry.close();
  await host.close();
});

test("a tool's description is on its spans only when asked (toolDescriptions)", async () => {
  const t = tracing();
  const { host } = makeHost();
  const inferenceId = host.beginInference({ conversationId: 'c' });
  let telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  await host.dispatch({ inferenceId, name: 'work', input: { n: 1 } });
  telemetry.uninstall();
  telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter, toolDescriptions: true });
  await host.dispatch({ inferenceId, name: 'work', input: { n: 2 } });
  telemetry.flush();
  const [plain, described] = byName(t.spans(), 'execute_tool work');
  assert.equal(plain!.attributes['gen_ai.tool.description'], undefined);
  assert.equal(described!.attributes['gen_ai.tool.description'], 'Works');
  assert.equal(described!.attributes['gen_ai.tool.type'], 'function');
  await telemetry.close();
  await host.close();
});

test('installed, only the refusal listener is added; uninstalled, nothing is left behind', async () => {
  const t = tracing();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'noop', description: 'Nothing', inputSchema: { type: 'object' }, handler: async () => textResult('ok') });
  assert.equal(host.listenerCount('lifecycle'), 0);
  const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter });
  assert.throws(() => instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter }), /already installed/);
  assert.equal(host.listenerCount('lifecycle'), 0, 'spans come from the hooks: no lifecycle event is built for them');
  assert.equal(host.listenerCount('refused'), 1);
  const inferenceId = host.beginInference({ conversationId: 'c' });
  await host.dispatch({ inferenceId, name: 'noop', input: {} });
  telemetry.uninstall();
  assert.equal(host.listenerCount('lifecycle'), 0);
  assert.equal(host.listenerCount('refused'), 0);
  await host.dispatch({ inferenceId, name: 'noop', input: {} });
  telemetry.flush();
  assert.equal(t.spans().length, 1, 'no span after uninstall');
  // A fresh instrumentation can be installed again.
  instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter }).uninstall();
  await host.close();
});

test("an exporter's work at a span's end never delays the call, and the span keeps the terminal's instant", async () => {
  const ended: ReadableSpan[] = [];
  // A processor as slow as a batching one serializing a full batch inside the end() that fills it.
  const slow = {
    onStart() {},
    onEnd(span: ReadableSpan) {
      const until = performance.now() + 50;
      while (performance.now() < until);
      ended.push(span);
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const t = tracing();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'quick', description: 'Quick', inputSchema: { type: 'object' }, handler: async () => textResult('ok') });
  const tracer = new BasicTracerProvider({ spanProcessors: [slow] }).getTracer('slow');
  const telemetry = instrumentOpenTelemetry(host, { tracer, meter: t.meter });
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const outcomes = await Promise.all([1, 2].map(() => host.dispatch({ inferenceId, name: 'quick', input: {} })));
  assert.deepEqual(outcomes.map((o) => o.status), ['completed', 'completed']);
  assert.equal(ended.length, 0, 'the callers had their outcomes before any span processor ran');
  await waitUntil(() => ended.length === 2 || undefined, 'the spans ended after the calls');
  // The second span was handed over 50 ms after its call ended (the first one's processing).
  for (const span of ended) {
    const duration = seconds(span.endTime) - seconds(span.startTime);
    assert.ok(duration < 0.04, `a span ends at its terminal's instant (${duration}s), not when it is handed over`);
  }
  await telemetry.close();
  await host.close();
});

test('a failing tracer never fails a call: the error goes to the OpenTelemetry diag channel', async () => {
  const t = tracing();
  const errors: string[] = [];
  diag.setLogger({ error: (message: string) => errors.push(message), warn() {}, info() {}, debug() {}, verbose() {} }, DiagLogLevel.ERROR);
  const broken = { startSpan: () => { throw new Error('tracer broke'); }, startActiveSpan: () => { throw new Error('tracer broke'); } } as unknown as Tracer;
  const { host } = makeHost();
  const telemetry = instrumentOpenTelemetry(host, { tracer: broken, meter: t.meter });
  try {
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'work', input: { n: 1 } });
    assert.equal(outcome.status, 'completed');
    assert.ok(errors.some((m) => m.includes('opening a span failed')), JSON.stringify(errors));
  } finally {
    diag.disable();
    await telemetry.close();
    await host.close();
  }
});
