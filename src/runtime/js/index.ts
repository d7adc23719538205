/**
 * The sandboxed JavaScript runtime for model-written scripts. See {@link JsRuntime}.
 */
export { JsRuntime, type JsEngine, type JsRuntimeOptions, type JsRuntimeStats, type ExecuteOptions } from './runtime.ts';
export { CapacityError, type JsPoolOptions } from './engines/pool-options.ts';
export type { ExecuteResult } from './session.ts';
export { DEFAULT_LIMITS, type JsLimits } from './limits.ts';

import { JsRuntime, type ExecuteOptions } from './runtime.ts';
import type { ExecuteResult } from './session.ts';

let shared: JsRuntime | undefined;

/**
 * Runs a script on a shared default runtime, created on first use. Its idle sandbox
 * processes do not keep the host alive.
 */
export function execute(code: string, options: ExecuteOptions): Promise<ExecuteResult> {
  shared ??= new JsRuntime();
  return shared.execute(code, options);
}
