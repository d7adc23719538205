/**
 * The Python runner: one warm `python3` interpreter per conversation, speaking newline-delimited
 * JSON, whose scripts call tools as `await tools.x__run({...})`. Sandboxed under bubblewrap (the
 * OS layer, src/runtime/isolation/); without it a robustness boundary, not a security sandbox.
 * See {@link PythonRunner}.
 */
export { PythonRunner, PythonRunnerError } from './runner.ts';
export type { PythonRunnerOptions, PythonRunOptions, PythonRunnerState } from './runner.ts';
export type { PythonRunResult } from './result.ts';
export { INHERITED_ENV } from './env.ts';
