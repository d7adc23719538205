/**
 * The Python runner: one warm `python3` interpreter per conversation, speaking newline-delimited
 * JSON, whose scripts call tools as `await tools.x__run({...})`. A robustness boundary, not a
 * security sandbox; see {@link PythonRunner}.
 */
export { PythonRunner, PythonRunnerError } from './runner.ts';
export type { PythonRunnerOptions, PythonRunOptions, PythonRunnerState } from './runner.ts';
export type { PythonRunResult } from './result.ts';
export { INHERITED_ENV } from './env.ts';
