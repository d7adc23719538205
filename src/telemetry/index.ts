/**
 * OpenTelemetry for toolcell (`toolcell/telemetry`): every call as an `execute_tool` span.
 * Only `@opentelemetry/api` is loaded from here; the OTLP export used by `serve` lives in
 * otlp.ts and is imported on its own.
 */
export { instrumentOpenTelemetry, INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from './instrument.ts';
export type { OpenTelemetryInstrumentation, OpenTelemetryOptions } from './instrument.ts';
export { traceMeta } from './trace-context.ts';
export * as attributes from './attributes.ts';
