/** `code_execution`: scripts whose every tool call is dispatched and observed like a model's. */
export { registerCodeExecution, type CodeExecution } from './tool.ts';
export { ToolError, scriptValue } from './bindings.ts';
export { CODE_EXECUTION, END_TURN_META_KEY, type CodeExecutionOptions, type ScriptLanguage } from './options.ts';
export type { WhenBusy } from './conversation-lock.ts';
export type { EnvelopeError, ResultEnvelope, TimeLimit, Truncation } from './result.ts';
export { RESULT_ENVELOPE_SCHEMA } from './output-schema.ts';
