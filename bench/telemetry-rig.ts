/**
 * OpenTelemetry on and off for the lifecycle benchmark, with the setup an operator runs:
 * src/telemetry/'s OTLP export (the SDK's BatchSpanProcessor feeding the OTLP/HTTP exporter,
 * registered globally: AsyncLocalStorage context, W3C propagation) to a receiver in its own
 * process (otlp-sink.mjs, as a collector would be) that counts the spans it gets, and an SDK
 * meter provider whose periodic reader collects and exports every second.
 *
 * Variants, each for the no-op built-in and for a server tool over stdio:
 * - off: the host without instrumentation, and with the global context manager disabled, so
 *   the process pays nothing for OpenTelemetry (AsyncLocalStorage's promise hooks, once
 *   enabled, slow every promise in the process);
 * - context (built-in only): the same, with the context manager enabled and nothing else —
 *   the share of the floor that is AsyncLocalStorage's promise hooks;
 * - floor: the same uninstrumented host, with what the SDK itself costs per call around each
 *   dispatch — one span started with the attributes toolcell would give it and ended, one
 *   histogram record — through the same processor, exporter and reader. No instrumentation
 *   can be cheaper than this; `on` minus `floor` is what toolcell adds;
 * - on: `instrumentOpenTelemetry`, every call a span;
 * - sampled (built-in only): the same with 10% of traces recorded (`sampleRatio: 0.1`, the
 *   documented knob of `startOtlpExport`).
 *
 * Each variant is measured as wall-clock calls/s and as CPU time of this process per call
 * (less sensitive to other processes on a shared machine), over 200 ms slices taken in
 * rotation so that load drifts hit all variants alike; each slice ends with the export of the
 * spans it made, so that export work is counted where it was caused.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, ROOT_CONTEXT, SpanKind, type Attributes, type Histogram, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { ToolHost } from '../src/host/tool-host.ts';
import { instrumentOpenTelemetry, type OpenTelemetryInstrumentation } from '../src/telemetry/index.ts';
import {
  CALL_ORIGIN,
  CALL_OUTCOME,
  EXECUTE_TOOL,
  GEN_AI_CONVERSATION_ID,
  GEN_AI_OPERATION_NAME,
  GEN_AI_TOOL_CALL_ID,
  GEN_AI_TOOL_NAME,
  INFERENCE_ID,
  MCP_METHOD_NAME,
  MCP_PROTOCOL_VERSION,
  METRIC_DURATION,
  NETWORK_TRANSPORT,
  SERVER_ID,
  SERVER_TOOL,
  spanName,
  TOOL_CLASSES,
} from '../src/telemetry/attributes.ts';
import { startOtlpExport, type OtlpExport } from '../src/telemetry/otlp.ts';
import { noopHost } from './rig.ts';

const PEER = join(resolve(fileURLToPath(new URL('..', import.meta.url))), 'fixtures', 'peer.mjs');

async function ask<T>(child: ChildProcess, message?: string): Promise<T> {
  const reply = once(child, 'message');
  if (message) child.send(message);
  return (await reply)[0] as T;
}

export interface Measure {
  callsPerSec: number;
  cpuUsPerCall: number;
}

type Call = (inferenceId: string, i: number) => Promise<unknown>;

/**
 * One measured variant: its calls, whether OpenTelemetry is on for it, the instrumentation it
 * installs for its slices (if any), and the export of what it made.
 */
interface Variant {
  call: Call;
  otel: boolean;
  instrument?: () => OpenTelemetryInstrumentation;
  export: OtlpExport | undefined;
  calls: number;
  wallMs: number;
  cpuUs: number;
}

/**
 * One slice of a variant: calls in batches of 100 for `ms`, then the export of the spans they
 * left buffered — inside the slice, so that their export is counted to the variant that made
 * them and to no other.
 */
async function slice(host: ToolHost, inferenceId: string, v: Variant, ms: number, setContext: (on: boolean) => void): Promise<void> {
  setContext(v.otel);
  const instrumentation = v.instrument?.();
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  let calls = 0;
  while (performance.now() - start < ms) {
    for (let k = 0; k < 100; k++) await v.call(inferenceId, v.calls + calls++);
    await new Promise((r) => setImmediate(r));
  }
  // The wait for the receiver's answer is not this process's work (a real export does not
  // block anything); the CPU spent serializing and sending is.
  v.wallMs += performance.now() - start;
  instrumentation?.flush();
  await v.export?.flush();
  const used = process.cpuUsage(cpu0);
  instrumentation?.uninstall();
  v.cpuUs += used.user + used.system;
  v.calls += calls;
}

const dispatching = (host: ToolHost, name: string): Call => (inferenceId, i) => host.dispatch({ inferenceId, name, input: { i } });

/**
 * The SDK floor of one call: a span with the attributes toolcell gives that call (values of
 * the same sizes), started before the dispatch and ended after it with its outcome, and one
 * duration record — without anything toolcell does to place, time or propagate it.
 */
function sdkFloor(host: ToolHost, name: string, tracer: Tracer, histogram: Histogram, server: boolean): Call {
  const title = spanName(name);
  const durationAttributes: Attributes = { [GEN_AI_OPERATION_NAME]: EXECUTE_TOOL, [GEN_AI_TOOL_NAME]: name, [CALL_OUTCOME]: 'completed' };
  const classes = ['shell'];
  return async (inferenceId, i) => {
    const attributes: Attributes = {
      [GEN_AI_OPERATION_NAME]: EXECUTE_TOOL,
      [GEN_AI_TOOL_NAME]: name,
      [GEN_AI_TOOL_CALL_ID]: `call_${i}_0123456789abcdef`,
      [GEN_AI_CONVERSATION_ID]: 'bench-otel',
      [CALL_ORIGIN]: 'model',
      [INFERENCE_ID]: inferenceId,
      [TOOL_CLASSES]: classes,
    };
    if (server) {
      attributes[SERVER_ID] = 'srv';
      attributes[SERVER_TOOL] = 'noop';
      attributes[MCP_METHOD_NAME] = 'tools/call';
      attributes[NETWORK_TRANSPORT] = 'pipe';
      attributes[MCP_PROTOCOL_VERSION] = '2025-06-18';
    }
    const start = performance.now();
    const span = tracer.startSpan(title, { kind: server ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes, startTime: start });
    const outcome = await host.dispatch({ inferenceId, name, input: { i } });
    const end = performance.now();
    span.setAttribute(CALL_OUTCOME, 'completed');
    span.end(end);
    histogram.record((end - start) / 1000, durationAttributes);
    return outcome;
  };
}

/** A no-op host that also has a fixture provider's `noop` tool as `srv--noop` (a real stdio round trip). */
async function benchHost(dir: string, tag: string): Promise<ToolHost> {
  const host = noopHost();
  const config = join(dir, `otel-provider-${tag}.json`);
  writeFileSync(config, JSON.stringify({ tools: [{ name: 'noop', classes: ['shell'], result: 'ok' }] }));
  await host.connectServer({ id: 'srv', command: process.execPath, args: [PEER], env: { TOOLCELL_PEER_CONFIG: config } });
  return host;
}

export interface TelemetryFigures {
  builtin: { off: Measure; context: Measure; floor: Measure; on: Measure; sampled: Measure };
  server: { off: Measure; floor: Measure; on: Measure };
  spansReceived: number;
}


const SLICE_MS = 200;

/** Measures every variant for about `msPerVariant` of wall-clock time, in rotating slices. */
export async function telemetryFigures(dir: string, msPerVariant = 3000): Promise<TelemetryFigures> {
  const sink = fork(fileURLToPath(new URL('./otlp-sink.mjs', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await ask<{ port: number }>(sink);
  const url = `http://127.0.0.1:${port}`;
  // startOtlpExport registers the SDK's context manager; it is replaced by one this rig can
  // switch off for the `off` variants (the same class, so `on` measures the same thing).
  const otlp = await startOtlpExport({ url, metrics: false });
  const manager = new AsyncLocalStorageContextManager();
  context.disable();
  const otelContext = (on: boolean) => {
    context.disable();
    if (!on) return;
    context.setGlobalContextManager(manager.enable());
    // AsyncLocalStorage installs its hooks on first use; every variant with OpenTelemetry gets them from the start.
    context.with(ROOT_CONTEXT, () => undefined);
  };
  const sampledOtlp = await startOtlpExport({ url, sampleRatio: 0.1, register: false, metrics: false });
  const exports: OtlpExport[] = [otlp, sampledOtlp];
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 1000 })],
  });
  const tracer = otlp.tracerProvider.getTracer('toolcell');
  const meter = meterProvider.getMeter('toolcell');
  // One host (one server process) for every variant: two processes of the same server can
  // differ by ±10 µs of this process's CPU per call on a shared machine (where the scheduler
  // puts them), more than what is measured here. The variants that trace install
  // instrumentation for their slices only.
  const host = await benchHost(dir, 'otel');
  const floorHistogram = meter.createHistogram(`${METRIC_DURATION}.floor`, { unit: 's' });
  const variant = (call: Call, otel: boolean, otlpExport?: OtlpExport, instrument?: boolean): Variant => ({
    call,
    otel,
    export: otlpExport,
    ...(instrument ? { instrument: () => instrumentOpenTelemetry(host, { tracer: otlpExport!.tracerProvider.getTracer('toolcell'), meter }) } : {}),
    calls: 0,
    wallMs: 0,
    cpuUs: 0,
  });
  const variants = {
    builtinOff: variant(dispatching(host, 'noop'), false),
    builtinContext: variant(dispatching(host, 'noop'), true),
    builtinFloor: variant(sdkFloor(host, 'noop', tracer, floorHistogram, false), true, otlp),
    builtinOn: variant(dispatching(host, 'noop'), true, otlp, true),
    sampled: variant(dispatching(host, 'noop'), true, sampledOtlp, true),
    serverOff: variant(dispatching(host, 'srv--noop'), false),
    serverFloor: variant(sdkFloor(host, 'srv--noop', tracer, floorHistogram, true), true, otlp),
    serverOn: variant(dispatching(host, 'srv--noop'), true, otlp, true),
  };
  const all = Object.values(variants);
  const inferenceId = host.beginInference({ conversationId: 'bench-otel' });
  // Warm-up (JIT, first exports), not counted.
  for (const v of all) await slice(host, inferenceId, v, 150, otelContext);
  for (const v of all) Object.assign(v, { calls: 0, wallMs: 0, cpuUs: 0 });
  // Short slices in rotation: a load change on the shared machine hits every variant alike.
  for (let round = 0; round < Math.ceil(msPerVariant / SLICE_MS); round++) for (const v of all) await slice(host, inferenceId, v, SLICE_MS, otelContext);
  otelContext(true);
  await host.close();
  for (const e of exports) await e.shutdown();
  await meterProvider.shutdown();
  context.disable();
  const { spans } = await ask<{ spans: number }>(sink, 'count');
  sink.send('exit');
  const m = (v: Variant): Measure => ({ callsPerSec: v.calls / (v.wallMs / 1000), cpuUsPerCall: v.cpuUs / v.calls });
  return {
    builtin: { off: m(variants.builtinOff), context: m(variants.builtinContext), floor: m(variants.builtinFloor), on: m(variants.builtinOn), sampled: m(variants.sampled) },
    server: { off: m(variants.serverOff), floor: m(variants.serverFloor), on: m(variants.serverOn) },
    spansReceived: spans,
  };
}
