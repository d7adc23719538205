/**
 * OpenTelemetry for toolcell (`toolcell/telemetry`): every call as an `execute_tool` span.
 * Only `@opentelemetry/api` is loaded from here; `startOtlpExport` (the export `serve` uses)
 * loads the SDK and the exporters, optional peer dependencies, when it is called.
 */
export { instrumentOpenTelemetry, INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from './instrument.ts';
export type { OpenTelemetryInstrumentation, OpenTelemetryOptions } from './instrument.ts';
export { traceMeta } from './trace-context.ts';
/** The attribute, metric and event names toolcell's spans and metrics use (GenAI and MCP conventions, and `toolcell.*`). */
export * as attributes from './attributes.ts';
export { startOtlpExport, tracesUrl, metricsUrl } from './otlp.ts';
export type { OtlpExport, OtlpExportOptions } from './otlp.ts';
export { TelemetryDependencyError, OTLP_PEERS } from './peers.ts';
