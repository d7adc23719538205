/**
 * OTLP/HTTP trace export for `toolcell serve` (and anyone who wants toolcell's own setup):
 * a Node tracer provider with a batching OTLP/HTTP (JSON) exporter, registered as the global
 * provider with the AsyncLocalStorage context manager and the W3C propagators, so that a
 * client's `traceparent` can be extracted and every span is exported in the background.
 *
 * This file is the only one in src/ that loads the OpenTelemetry SDK; nothing imports it
 * statically, so the library itself depends on `@opentelemetry/api` alone.
 */
import type { TracerProvider } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';

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
}

export interface OtlpExport {
  readonly tracerProvider: TracerProvider;
  /** Exports what is buffered now. */
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

/** Starts exporting spans over OTLP/HTTP. */
export function startOtlpExport(options: OtlpExportOptions): OtlpExport {
  const exporter = new OTLPTraceExporter({ url: tracesUrl(options.url), ...(options.headers ? { headers: options.headers } : {}) });
  const ratio = options.sampleRatio ?? 1;
  if (!(ratio >= 0 && ratio <= 1)) throw new Error(`telemetry sampleRatio must be between 0 and 1, got ${ratio}`);
  const provider = new NodeTracerProvider({
    sampler: new ParentBasedSampler({ root: ratio === 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(ratio) }),
    resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'toolcell' }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: options.exportDelayMs ?? 1000 })],
  });
  if (options.register !== false) provider.register();
  return {
    tracerProvider: provider,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
