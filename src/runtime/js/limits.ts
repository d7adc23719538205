/**
 * Limits of one JavaScript run. Every limit fails the run (or the offending call) with an error
 * that names the limit, so a model can see what it hit.
 */
export interface JsLimits {
  /** Wall-clock budget in ms, enforced by killing the sandbox process. `Infinity` disables it. Paused while a tool holds `pauseClock()`. */
  timeoutMs: number;
  /** V8 heap of the sandbox process in MiB (at least 16). Exceeding it fails the run with kind `sandbox`. */
  heapMb: number;
  /** Tool and global calls per run; one more fails the run. */
  maxCalls: number;
  /** Calls pending at once; one more is rejected inside the script with a RangeError. */
  maxInFlight: number;
  /** UTF-8 bytes of one call's JSON arguments; larger calls are rejected inside the script. */
  maxArgsBytes: number;
  /** UTF-8 bytes of one call's result as it crosses to the sandbox (its JSON, or a JsonText's text as given); larger results reject the call inside the script. */
  maxResultBytes: number;
  /** UTF-8 bytes of the JSON arguments of all calls pending at once; the call past it is rejected inside the script with a RangeError. */
  maxInFlightBytes: number;
  /** UTF-8 bytes of all console output of a run; more fails the run. */
  maxLogBytes: number;
  /** Console calls (log entries) per run, empty ones included; one more fails the run. */
  maxLogEntries: number;
  /**
   * Nesting of arrays and objects in tool arguments (the call is rejected inside the script),
   * logged values (console.log throws) and the return value (the run fails), all with a RangeError.
   */
  maxDepth: number;
  /** UTF-8 bytes of the JSON return value; more fails the run. */
  maxReturnBytes: number;
}

/** Defaults used where neither the runtime nor the call sets a limit. */
export const DEFAULT_LIMITS: Readonly<JsLimits> = Object.freeze({
  timeoutMs: 30_000,
  heapMb: 128,
  maxCalls: 100_000,
  maxInFlight: 1_000,
  maxArgsBytes: 1 << 20,
  maxResultBytes: 16 << 20,
  maxInFlightBytes: 64 << 20,
  maxLogBytes: 1 << 20,
  maxLogEntries: 10_000,
  maxDepth: 256,
  maxReturnBytes: 8 << 20,
});

const KEYS = Object.keys(DEFAULT_LIMITS) as Array<keyof JsLimits>;

/** Checks one layer of overrides; throws a TypeError naming the first bad entry. */
export function checkLimits(limits: Partial<JsLimits> | undefined, where: string): void {
  if (limits === undefined) return;
  if (limits === null || typeof limits !== 'object') throw new TypeError(`${where} must be an object`);
  for (const key of Object.keys(limits)) {
    if (!(KEYS as string[]).includes(key)) {
      throw new TypeError(`${where}.${key} is not a limit; known limits: ${KEYS.join(', ')}`);
    }
    const value = (limits as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const problem = limitProblem(key as keyof JsLimits, value);
    if (problem) throw new TypeError(`${where}.${key} ${problem}`);
  }
}

function limitProblem(key: keyof JsLimits, value: unknown): string | undefined {
  if (typeof value !== 'number' || Number.isNaN(value)) return 'must be a number';
  if (key === 'timeoutMs') return value > 0 ? undefined : 'must be greater than 0 (use Infinity for no limit)';
  if (!Number.isSafeInteger(value)) return 'must be a whole number';
  if (key === 'heapMb') return value >= 16 ? undefined : 'must be at least 16';
  return value >= 1 ? undefined : 'must be at least 1';
}

/** Merges override layers over the defaults, later layers winning; each layer is checked first. */
export function resolveLimits(...layers: Array<{ limits: Partial<JsLimits> | undefined; where: string }>): JsLimits {
  const out: JsLimits = { ...DEFAULT_LIMITS };
  for (const { limits, where } of layers) {
    checkLimits(limits, where);
    if (limits === undefined) continue;
    for (const key of KEYS) {
      const value = limits[key];
      if (value !== undefined) out[key] = value;
    }
  }
  return out;
}
