/**
 * Trace context for a server tool's `tools/call` request, carried in `params._meta` as the MCP
 * conventions (and MCP SEP-414) describe: the configured propagators first, so baggage and
 * other formats travel when the embedder set them up, and W3C `traceparent` / `tracestate`
 * written from the span itself when no propagator produced them — an embedder who only
 * passed a tracer still gets a server's spans into the same trace.
 */
import { isSpanContextValid, propagation, trace, type Context } from '@opentelemetry/api';

/** The `_meta` members that carry `ctx`'s trace context, or undefined when it has none. */
export function traceMeta(ctx: Context): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  if (carrier.traceparent === undefined) {
    const span = trace.getSpanContext(ctx);
    if (span !== undefined && isSpanContextValid(span)) {
      carrier.traceparent = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
      const state = span.traceState?.serialize();
      if (state) carrier.tracestate = state;
    }
  }
  for (const _ in carrier) return carrier;
  return undefined;
}
