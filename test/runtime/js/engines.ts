/** The JavaScript engines every shared runtime test runs against. */
import type { JsEngine } from '../../../src/runtime/js/index.ts';

export const ENGINES: readonly JsEngine[] = ['quickjs', 'v8'];
