/**
 * OTLP/HTTP export for `toolcell serve` and for embedders (`startOtlpExport` from
 * `toolcell/telemetry`): a Node tracer provider with a batching OTLP/HTTP (JSON) trace exporter,
 * registered as the global provider with the AsyncLocalStorage context manager and the W3C
 * propagators (so a client's `traceparent` can be extracted), and a meter provider whose
 * periodic reader pushes toolcell's metrics to the same collector.
 *
 * The SDK and the exporters are optional peer dependencies: they are loaded here, with dynamic
 * imports, only when an export is started, after peers.ts has checked that all of them are
 * installed (one clear error naming what to install otherwise). Only their types are imported
 * statically.
 */
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { requirePeers } from './peers.ts';

/** Options of {@link startOtlpExport}. */
export interface OtlpExportOptions {
  /**
   * The collector's OTLP/HTTP endpoint: a base URL (`http://localhost:4318`), to which
   * `/v1/traces` is added, or the full traces URL (any URL whose path is not `/`).
   */
  url: string;
  /** Sent with every export request (an API key, a tenant). */
  headers?: Record<string, string>;
  /** `service.name` of the exported spans (default `toolcell`). */
  serviceName?: string;
  /** Register as the global tracer provider, context manager and propagator (default true). */
  register?: boolean;
  /** Longest wait before a batch is exported, in ms (default 1000). */
  exportDelayMs?: number;
  /**
   * Share of new traces recorded, 0 to 1 (default 1: every trace). A call whose parent was
   * sampled (or not) follows its parent, so a trace is always whole.
   */
  sampleRatio?: number;
  /**
   * Export toolcell's metrics too (default true): pushed every `metricsIntervalMs` (default
   * 60 000) to `metricsUrl` (default: `/v1/metrics` beside the traces endpoint).
   */
  metrics?: boolean;
  metricsUrl?: string;
  metricsIntervalMs?: number;
}

/** What {@link startOtlpExport} resolves to: the providers to take tracers and meters from, and flush/shutdown. */
export interface OtlpExport {
  readonly tracerProvider: TracerProvider;
  /** The metrics provider (registered globally with `register`), unless `metrics: false`. */
  readonly meterProvider: MeterProvider | undefined;
  /** Exports what is buffered now (spans and metrics). */
  flush(): Promise<void>;
  /** Exports what is buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

/** Resolves the traces endpoint; throws a clear error for a URL that is not http(s). */
export function tracesUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`telemetry.otlp.url: "${url}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`telemetry.otlp.url: "${url}" must be http or https`);
  if (parsed.pathname === '/' || parsed.pathname === '') parsed.pathname = '/v1/traces';
  return parsed.toString();
}

/** The metrics endpoint beside a traces endpoint: `/v1/metrics` for `/v1/traces` or a bare URL. */
export function metricsUrl(url: string): string {
  const traces = new URL(tracesUrl(url));
  if (!traces.pathname.endsWith('/v1/traces')) {
    throw new Error(`telemetry.otlp.url: "${url}" has a custom path, so the metrics endpoint cannot be derived from it: give metricsUrl`);
  }
  traces.pathname = traces.pathname.slice(0, -'/v1/traces'.length) + '/v1/metrics';
  return traces.toString();
}

/**
 * Starts exporting spans (and metrics) over OTLP/HTTP. Rejects with a
 * `TelemetryDependencyError` when an optional OpenTelemetry package is not installed.
 */
export async function startOtlpExport(options: OtlpExportOptions): Promise<OtlpExport> {
  const traces = tracesUrl(options.url);
  const ratio = options.sampleRatio ?? 1;
  if (!(ratio >= 0 && ratio <= 1)) throw new Error(`telemetry sampleRatio must be between 0 and 1, got ${ratio}`);
  const withMetrics = options.metrics !== false;
  const metricsEndpoint = withMetrics ? (options.metricsUrl !== undefined ? tracesUrl(options.metricsUrl) : metricsUrl(options.url)) : undefined;
  requirePeers('OTLP export', withMetrics ? undefined : ['@opentelemetry/api', '@opentelemetry/resources', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http']);
  const [{ metrics }, { OTLPTraceExporter }, { resourceFromAttributes }, sdk] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
  ]);
  const headers = options.headers ? { headers: options.headers } : {};
  const resource = resourceFromAttributes({ 'service.name': options.serviceName ?? 'toolcell' });
  const tracerProvider = new sdk.NodeTracerProvider({
    sampler: new sdk.ParentBasedSampler({ root: ratio === 1 ? new sdk.AlwaysOnSampler() : new sdk.TraceIdRatioBasedSampler(ratio) }),
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url: traces, ...headers }), { scheduledDelayMillis: options.exportDelayMs ?? 1000 })],
  });
  if (options.register !== false) tracerProvider.register();
  let meterProvider: import('@opentelemetry/sdk-metrics').MeterProvider | undefined;
  if (metricsEndpoint !== undefined) {
    const [{ MeterProvider, PeriodicExportingMetricReader }, { OTLPMetricExporter }] = await Promise.all([
      import('@opentelemetry/sdk-metrics'),
      import('@opentelemetry/exporter-metrics-otlp-http'),
    ]);
    meterProvider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: metricsEndpoint, ...headers }), exportIntervalMillis: options.metricsIntervalMs ?? 60_000 }),
      ],
    });
    if (options.register !== false) metrics.setGlobalMeterProvider(meterProvider);
  }
  return {
    tracerProvider,
    meterProvider,
    flush: async () => {
      await Promise.all([tracerProvider.forceFlush(), meterProvider?.forceFlush()]);
    },
    shutdown: async () => {
      await Promise.all([tracerProvider.shutdown(), meterProvider?.shutdown()]);
    },
  };
}
