/**
 * What `toolcell serve` needs for `telemetry: { otlp: { url, headers? } }`: OTLP export, the
 * host instrumented with it, and the client's trace context (`params._meta.traceparent` of
 * its `tools/call`, as the MCP conventions describe) as the parent of the call it asks for.
 * Loaded by serve with a dynamic import, only when the config asks for telemetry; it exports
 * spans and the metrics (duration, refusals, observer drops) to the same collector.
 */
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import type { ToolHost } from '../host/tool-host.ts';
import { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION, instrumentOpenTelemetry } from './instrument.ts';
import { startOtlpExport } from './otlp.ts';

export interface ServeTelemetryConfig {
  otlp: { url: string; headers?: Record<string, string>; metricsIntervalMs?: number };
}

export interface ServeTelemetry {
  /** Runs `dispatch` with the context a client's request `_meta` carries as its parent. */
  withRequestContext<T>(meta: Record<string, unknown> | undefined, dispatch: () => T): T;
  /** Ends the instrumentation and exports what is left. Call after the host closed. */
  shutdown(): Promise<void>;
}

export async function startServeTelemetry(host: ToolHost, config: ServeTelemetryConfig): Promise<ServeTelemetry> {
  const otlp = await startOtlpExport({
    url: config.otlp.url,
    ...(config.otlp.headers ? { headers: config.otlp.headers } : {}),
    ...(config.otlp.metricsIntervalMs !== undefined ? { metricsIntervalMs: config.otlp.metricsIntervalMs } : {}),
  });
  const instrumentation = instrumentOpenTelemetry(host, {
    tracer: otlp.tracerProvider.getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION),
    ...(otlp.meterProvider ? { meter: otlp.meterProvider.getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION) } : {}),
  });
  return {
    withRequestContext(meta, dispatch) {
      if (meta === undefined) return dispatch();
      return context.with(propagation.extract(ROOT_CONTEXT, meta), dispatch);
    },
    async shutdown() {
      await instrumentation.close({ timeoutMs: 1000 });
      await otlp.shutdown();
    },
  };
}
