/**
 * The OpenTelemetry packages toolcell's own OTLP export needs, which are optional peer
 * dependencies: a user who does not trace installs none of them (they weigh about 28 MB).
 * This file only checks that they resolve, so that a missing one is one clear error naming
 * every package to install, instead of the first ERR_MODULE_NOT_FOUND of a dynamic import.
 * It loads nothing from OpenTelemetry itself.
 */

/** What `startOtlpExport` (and so `serve`'s `telemetry`) loads. */
export const OTLP_PEERS = [
  '@opentelemetry/api',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/exporter-metrics-otlp-http',
] as const;

/** Some optional telemetry packages are not installed. */
export class TelemetryDependencyError extends Error {
  override readonly name = 'TelemetryDependencyError';
  constructor(
    readonly feature: string,
    /** The packages that did not resolve. */
    readonly missing: readonly string[],
  ) {
    super(`${feature} needs the optional OpenTelemetry packages ${missing.join(', ')}; install them with: npm install ${missing.join(' ')}`);
  }
}

/** The packages of `names` that do not resolve from toolcell's installed location. */
export function missingPackages(names: readonly string[]): string[] {
  return names.filter((name) => {
    try {
      import.meta.resolve(name);
      return false;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
      throw error;
    }
  });
}

/** Throws a `TelemetryDependencyError` naming every package of `names` that is missing. */
export function requirePeers(feature: string, names: readonly string[] = OTLP_PEERS): void {
  const missing = missingPackages(names);
  if (missing.length > 0) throw new TelemetryDependencyError(feature, missing);
}
