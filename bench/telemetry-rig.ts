/**
 * OpenTelemetry on and off for the lifecycle benchmark. "On" is the whole path an operator
 * runs: src/telemetry/'s OTLP/HTTP export (registered globally: AsyncLocalStorage context,
 * W3C propagation) to a receiver in its own process (otlp-sink.mjs, as a collector would be)
 * that counts the spans it gets, and an SDK meter provider recording the metrics.
 *
 * Each variant is measured as wall-clock calls/s and as CPU time of this process per call
 * (less sensitive to other processes on a shared machine); on and off alternate so that load
 * drifts hit both alike.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { ToolHost } from '../src/host/tool-host.ts';
import { instrumentOpenTelemetry, type OpenTelemetryInstrumentation } from '../src/telemetry/index.ts';
import { startOtlpExport, type OtlpExport } from '../src/telemetry/otlp.ts';
import { median, noopHost } from './rig.ts';

const PEER = join(resolve(fileURLToPath(new URL('..', import.meta.url))), 'fixtures', 'peer.mjs');

class Reader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function ask<T>(child: ChildProcess, message?: string): Promise<T> {
  const reply = once(child, 'message');
  if (message) child.send(message);
  return (await reply)[0] as T;
}

export interface Measure {
  callsPerSec: number;
  cpuUsPerCall: number;
}

/** Dispatches `name` in batches of 100 for `ms`, three rounds: median rate and CPU per call. */
async function measure(host: ToolHost, name: string, ms: number): Promise<Measure> {
  const inferenceId = host.beginInference({ conversationId: 'bench-otel' });
  for (let i = 0; i < 1000; i++) await host.dispatch({ inferenceId, name, input: { i } });
  const rates: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < 3; round++) {
    let calls = 0;
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    while (performance.now() - start < ms) {
      for (let k = 0; k < 100; k++) await host.dispatch({ inferenceId, name, input: { i: calls++ } });
      await new Promise((r) => setImmediate(r));
    }
    const used = process.cpuUsage(cpu0);
    rates.push(calls / ((performance.now() - start) / 1000));
    cpu.push((used.user + used.system) / calls);
  }
  return { callsPerSec: median(rates), cpuUsPerCall: median(cpu) };
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
  builtin: { off: Measure; on: Measure; sampled: Measure };
  server: { off: Measure; on: Measure };
  spansReceived: number;
}

const middle = (xs: Measure[]): Measure => ({ callsPerSec: median(xs.map((x) => x.callsPerSec)), cpuUsPerCall: median(xs.map((x) => x.cpuUsPerCall)) });

export async function telemetryFigures(dir: string, ms: number, passes = 2): Promise<TelemetryFigures> {
  const sink = fork(fileURLToPath(new URL('./otlp-sink.mjs', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await ask<{ port: number }>(sink);
  const url = `http://127.0.0.1:${port}`;
  const exports: OtlpExport[] = [];
  const readers: MeterProvider[] = [];
  const instrumentations: OpenTelemetryInstrumentation[] = [];
  const traced = async (tag: string, sampleRatio: number, register: boolean) => {
    const otlp = startOtlpExport({ url, sampleRatio, register });
    const meterProvider = new MeterProvider({ readers: [new Reader()] });
    const host = await benchHost(dir, tag);
    exports.push(otlp);
    readers.push(meterProvider);
    instrumentations.push(instrumentOpenTelemetry(host, { tracer: otlp.tracerProvider.getTracer('toolcell'), meter: meterProvider.getMeter('toolcell') }));
    return host;
  };
  const on = await traced('on', 1, true);
  const sampled = await traced('sampled', 0.1, false);
  const off = await benchHost(dir, 'off');
  const runs = { builtinOff: [] as Measure[], builtinOn: [] as Measure[], sampled: [] as Measure[], serverOff: [] as Measure[], serverOn: [] as Measure[] };
  for (let pass = 0; pass < passes; pass++) {
    runs.builtinOff.push(await measure(off, 'noop', ms));
    runs.builtinOn.push(await measure(on, 'noop', ms));
    runs.sampled.push(await measure(sampled, 'noop', ms));
    runs.serverOff.push(await measure(off, 'srv--noop', ms));
    runs.serverOn.push(await measure(on, 'srv--noop', ms));
  }
  for (const i of instrumentations) await i.close();
  for (const host of [on, sampled, off]) await host.close();
  for (const e of exports) await e.shutdown();
  for (const m of readers) await m.shutdown();
  const { spans } = await ask<{ spans: number }>(sink, 'count');
  sink.send('exit');
  return {
    builtin: { off: middle(runs.builtinOff), on: middle(runs.builtinOn), sampled: middle(runs.sampled) },
    server: { off: middle(runs.serverOff), on: middle(runs.serverOn) },
    spansReceived: spans,
  };
}
