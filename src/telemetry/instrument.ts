/**
 * `instrumentOpenTelemetry(host)`: the embedder's switch for OpenTelemetry. Until it is
 * called nothing is installed and the dispatch path pays one `undefined` check per phase;
 * afterwards every call that opens is an `execute_tool` span and the metrics record.
 * Only `@opentelemetry/api` is used: the embedder brings the SDK and exporters.
 *
 * @example
 * ```ts
 * import { instrumentOpenTelemetry } from 'toolcell/telemetry';
 * const telemetry = instrumentOpenTelemetry(host, { tracer: provider.getTracer('my-agent') });
 * // … dispatch calls; each is a span under the span active when dispatch was called
 * await telemetry.close();
 * ```
 */
import { metrics, trace, type Meter, type Tracer } from '@opentelemetry/api';
import type { ToolHost } from '../host/tool-host.ts';
import { CallSpans } from './call-spans.ts';
import { ToolMetrics } from './metrics.ts';
import { redactingTracer } from './redact.ts';

/** Instrumentation scope name and version of toolcell's tracer and meter. */
export const INSTRUMENTATION_NAME = 'toolcell';
/** The package version, reported as the instrumentation scope's version. */
export const INSTRUMENTATION_VERSION = '0.1.0';

/** Options of {@link instrumentOpenTelemetry}. */
export interface OpenTelemetryOptions {
  /** Default: the global tracer provider's `toolcell` tracer. */
  tracer?: Tracer;
  /** Default: the global meter provider's `toolcell` meter. */
  meter?: Meter;
  /**
   * Record arguments (`gen_ai.tool.call.arguments`) and completed results
   * (`gen_ai.tool.call.result`) on spans, after the same credential redaction and within the
   * same size bound (`inputBoundBytes`) observers get. Default false: no content on spans.
   * Either way every other string on a span (status message, event, conversation id, tool
   * name) and every metric label passes value redaction.
   */
  captureContent?: boolean;
  /**
   * Put each tool's registered description on its spans (`gen_ai.tool.description`). Default
   * false: descriptions can be long, and they are the same on every call of a tool.
   */
  toolDescriptions?: boolean;
}

/** What {@link instrumentOpenTelemetry} returns: close or uninstall it to stop making spans. */
export interface OpenTelemetryInstrumentation {
  /** Calls whose span is open now. */
  readonly openSpans: number;
  /**
   * Ends now the spans of calls that already ended. Spans end on their own right after the
   * event-loop turn of their call's terminal (so that an exporter's batch work never delays a
   * call); tests and shutdown paths call this to see them at once.
   */
  flush(): void;
  /**
   * Stops instrumenting at once: listeners and the dispatch hook are removed, spans still
   * open end now with `toolcell.instrumentation.detached`.
   */
  uninstall(): void;
  /** Waits (at most `timeoutMs`, default 5 s) for open calls to end, so their spans are whole, then uninstalls. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/**
 * Instruments a host: one `execute_tool` span per call that opens, trace context on server
 * tools' requests, and the `gen_ai.execute_tool.duration`, refusal and observer-drop metrics.
 * One instrumentation per host at a time.
 */
export function instrumentOpenTelemetry(host: ToolHost, options: OpenTelemetryOptions = {}): OpenTelemetryInstrumentation {
  // Every string on a span passes value redaction, whatever captureContent says (redact.ts).
  const tracer = redactingTracer(options.tracer ?? trace.getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION));
  const meter = options.meter ?? metrics.getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const toolMetrics = new ToolMetrics(meter, host);
  const spans = new CallSpans(tracer, toolMetrics, {
    captureContent: options.captureContent === true,
    toolDescriptions: options.toolDescriptions === true,
    maxContentBytes: host.inputBoundBytes,
    protocolVersion: (serverId) => host.server(serverId)?.protocolVersion,
  });
  let removeHook: () => void;
  try {
    removeHook = host.instrument(spans);
  } catch (error) {
    toolMetrics.close();
    throw error;
  }
  host.on('refused', spans.onRefused);
  let installed = true;
  const uninstall = () => {
    if (!installed) return;
    installed = false;
    host.off('refused', spans.onRefused);
    removeHook();
    toolMetrics.close();
    spans.detach();
  };
  return {
    get openSpans() {
      return spans.openCount;
    },
    flush: () => spans.flush(),
    uninstall,
    async close({ timeoutMs = 5000 } = {}) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([spans.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      uninstall();
    },
  };
}
