/**
 * No secret reaches the OTLP side (issue 42.2): a tool's thrown message went into span status
 * verbatim — `connect failed for postgres://app:<password>@db…`, `sk-proj-…`, `ghp_…` — with
 * `captureContent: false` too, and a client-chosen conversation id or tool name went into span
 * attributes, refusal events and metric labels unredacted. Every span attribute, event, status
 * and metric label now goes through the one value-redaction path, whatever captureContent says;
 * captured arguments go through boundInput as observers' inputs do (the 29-spelling corpus).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { instrumentOpenTelemetry } from '../../src/telemetry/index.ts';
import { CORPUS } from '../lifecycle/redaction-corpus.ts';
import { tracing } from './setup.ts';

const S = 'Zq8vN3xR7tLm2KpW9yB4';
const GHP = `ghp_${S}${S.slice(0, 16)}`;
const THROWN = `connect failed for postgres://app:${S}@db.internal:5432/app (key sk-proj-${S}${S}, token ${GHP})`;

/** Everything a span carries that an exporter would send, as one text. */
function exported(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })) })));
}

for (const captureContent of [false, true]) {
  test(`a thrown message, a conversation id and a tool name carry no secret to spans or metrics (captureContent: ${captureContent})`, async () => {
    const t = tracing();
    const host = new ToolHost({ logger: pino({ level: 'silent' }) });
    host.registerTool({ name: 'explode', description: 'Fails', inputSchema: { type: 'object' }, handler: async () => { throw new Error(THROWN); } });
    host.registerTool({ name: GHP, description: 'A tool named like a token', inputSchema: { type: 'object' }, handler: async () => textResult('ok') });
    const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter, captureContent });
    try {
      const inferenceId = host.beginInference({ conversationId: `user=alice&password=${S}` });
      assert.equal((await host.dispatch({ inferenceId, name: 'explode', input: { url: `https://u:${S}@x.example/` } })).status, 'failed');
      assert.equal((await host.dispatch({ inferenceId, name: GHP, input: {} })).status, 'completed');
      // A refused call is an event on the span active when it was dispatched.
      await t.tracer.startActiveSpan('agent', async (parent) => {
        assert.equal((await host.dispatch({ inferenceId, name: `sk-proj-${S}${S}`, input: {} })).status, 'refused');
        parent.end();
      });
      telemetry.flush();
      const spans = t.spans();
      const explode = spans.find((s) => s.attributes['gen_ai.tool.name'] === 'explode')!;
      assert.match(explode.status.message ?? '', /^connect failed for postgres:\/\/app:\[redacted\]@db\.internal:5432\/app/);
      const text = exported(spans);
      assert.ok(!text.includes(S), text);
      assert.ok(text.includes('toolcell.call.refused'), 'the refusal event is there');
      const labels = JSON.stringify([...(await t.points('gen_ai.execute_tool.duration')), ...(await t.points('toolcell.tool.refusals'))]);
      assert.ok(labels.includes('explode'), labels);
      assert.ok(!labels.includes(S), labels);
    } finally {
      await telemetry.close();
      await host.close();
    }
  });
}

test('captured arguments carry none of the 29 spellings', async () => {
  const t = tracing();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'echo', description: 'Echoes', inputSchema: { type: 'object' }, handler: async () => textResult('done') });
  const telemetry = instrumentOpenTelemetry(host, { tracer: t.tracer, meter: t.meter, captureContent: true });
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    for (const c of CORPUS) await host.dispatch({ inferenceId, name: 'echo', input: c.input });
    telemetry.flush();
    const spans = t.spans();
    assert.equal(spans.length, CORPUS.length);
    for (const [i, c] of CORPUS.entries()) {
      const captured = String(spans[i]!.attributes['gen_ai.tool.call.arguments']);
      for (const secret of c.secrets) assert.ok(!captured.includes(secret), `${c.name}: ${captured}`);
      JSON.parse(captured);
    }
  } finally {
    await telemetry.close();
    await host.close();
  }
});
