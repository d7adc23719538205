/**
 * What the telemetry tests share: the SDK's in-memory span exporter behind a simple
 * processor, a metric reader collected on demand, the AsyncLocalStorage context manager
 * (so `context.active()` follows async code, as in a real process), and a span tree renderer
 * that names parents by span name and call id instead of random span ids.
 */
import { context, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type HistogramMetricData, type SumMetricData } from '@opentelemetry/sdk-metrics';

let contextManagerSet = false;

class CollectingReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Tracing {
  tracer: ReturnType<BasicTracerProvider['getTracer']>;
  meter: ReturnType<MeterProvider['getMeter']>;
  spans(): ReadableSpan[];
  /** Every data point of the metric named `name`: its attributes and value (sum, or histogram count/sum). */
  points(name: string): Promise<{ attributes: Attributes; value: number; count?: number }[]>;
}

export function tracing(): Tracing {
  if (!contextManagerSet) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerSet = true;
  }
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracer: provider.getTracer('test'),
    meter: meterProvider.getMeter('test'),
    spans: () => exporter.getFinishedSpans(),
    async points(name) {
      const { resourceMetrics } = await reader.collect();
      const out: { attributes: Attributes; value: number; count?: number }[] = [];
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name !== name) continue;
          for (const point of (metric as SumMetricData | HistogramMetricData).dataPoints) {
            const v = point.value as number | { count: number; sum?: number };
            out.push(typeof v === 'number' ? { attributes: point.attributes, value: v } : { attributes: point.attributes, value: v.sum ?? 0, count: v.count });
          }
        }
      }
      return out;
    },
  };
}

/** The span's own id and its parent's. */
export const ids = (span: ReadableSpan) => ({ spanId: span.spanContext().spanId, traceId: span.spanContext().traceId, parent: span.parentSpanContext?.spanId });

/** Seconds of an HrTime. */
export const seconds = (t: [number, number]) => t[0] + t[1] / 1e9;

/** Span kind names for readable assertions. */
export const KIND = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;
