/** Limits of one JavaScript run; every one is configurable and every breach is a clear error. */

export interface JsLimits {
  /** Wall-clock limit; the worker is terminated when it passes (default 30 s). */
  timeoutMs: number;
  /** Worker heap (old generation) in MiB (default 256). */
  heapMb: number;
  /** Tool calls per run (default 10,000,000). */
  maxCalls: number;
  /** Tool calls in flight at once (default 1,000). */
  maxInFlight: number;
  /** Serialized arguments of one call, in characters (default 1 MiB). */
  maxArgsBytes: number;
  /** Serialized result of one call, in characters (default 16 MiB). */
  maxResultBytes: number;
  /** All console output of one run, in characters (default 64 KiB). */
  maxLogBytes: number;
  /** Serialized return value, in characters (default 4 MiB). */
  maxReturnBytes: number;
}

export const DEFAULT_LIMITS: Readonly<JsLimits> = Object.freeze({
  timeoutMs: 30_000,
  heapMb: 256,
  maxCalls: 10_000_000,
  maxInFlight: 1_000,
  maxArgsBytes: 1024 * 1024,
  maxResultBytes: 16 * 1024 * 1024,
  maxLogBytes: 64 * 1024,
  maxReturnBytes: 4 * 1024 * 1024,
});

/** Merges overrides onto defaults; a limit that is not a positive number is a TypeError. */
export function resolveLimits(...layers: (Partial<JsLimits> | undefined)[]): JsLimits {
  const out: JsLimits = { ...DEFAULT_LIMITS };
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (!(key in DEFAULT_LIMITS)) throw new TypeError(`unknown limit "${key}"`);
      if (typeof value !== 'number' || !(value > 0)) throw new TypeError(`limit ${key} must be a positive number, got ${String(value)}`);
      (out as unknown as Record<string, number>)[key] = value;
    }
  }
  return out;
}
