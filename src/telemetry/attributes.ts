/**
 * The names toolcell's spans and metrics use: the OpenTelemetry GenAI conventions for tool
 * execution (`execute_tool`), the MCP conventions for a call that goes to a server, and
 * toolcell's own facts under `toolcell.`. Kept in one place so the span builder, the metrics
 * and the tests cannot drift apart.
 */

// GenAI semantic conventions (tool execution), Development status.
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
/**
 * `function` for a tool the host runs itself (built-ins, `code_execution`), `extension` for a
 * server tool (the host calls out to an MCP server, which reaches the outside world).
 */
export const GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
/** Opt-in (`toolDescriptions`): the tool's description as registered (not per-call content). */
export const GEN_AI_TOOL_DESCRIPTION = 'gen_ai.tool.description';
export const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
/** Opt-in (`captureContent`): redacted, bounded JSON of the arguments. */
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
/** Opt-in (`captureContent`): redacted, bounded JSON of a completed call's result. */
export const GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const EXECUTE_TOOL = 'execute_tool';
export const ERROR_TYPE = 'error.type';

// MCP semantic conventions: a server tool's span is the MCP client span too (the conventions
// ask for one span, carrying both sets, when the tool execution is already traced).
export const MCP_METHOD_NAME = 'mcp.method.name';
export const MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const NETWORK_TRANSPORT = 'network.transport';

// toolcell's own.
export const TOOL_CLASSES = 'toolcell.tool.classes';
export const SERVER_ID = 'toolcell.server.id';
export const SERVER_TOOL = 'toolcell.server.tool';
export const CALL_ORIGIN = 'toolcell.call.origin';
export const INFERENCE_ID = 'toolcell.inference.id';
export const PARENT_CALL_ID = 'toolcell.call.parent_id';
export const MODEL_CALL_ID = 'toolcell.call.model_call_id';
/** The terminal phase: `completed`, `failed` or `aborted` (an error result is `completed`). */
export const CALL_OUTCOME = 'toolcell.call.outcome';
export const ARGUMENTS_ALTERED = 'toolcell.tool.call.arguments_altered';
export const ARGUMENTS_WITHHELD = 'toolcell.tool.call.arguments_withheld';
export const RESULT_ALTERED = 'toolcell.tool.call.result_altered';
export const RESULT_WITHHELD = 'toolcell.tool.call.result_withheld';
export const REFUSAL_CODE = 'toolcell.refusal.code';
export const REFUSAL_MESSAGE = 'toolcell.refusal.message';
export const APPROVED = 'toolcell.approval.approved';
export const OBSERVER_ID = 'toolcell.observer.id';
/** Set on spans still open when the instrumentation was removed (they end then). */
export const DETACHED = 'toolcell.instrumentation.detached';

// Span events.
export const EVENT_APPROVAL_REQUESTED = 'toolcell.approval.requested';
export const EVENT_APPROVAL_DECIDED = 'toolcell.approval.decided';
/** On the span that was active (model call) or the parent `code_execution` span (script call). */
export const EVENT_CALL_REFUSED = 'toolcell.call.refused';

// Metrics.
export const METRIC_DURATION = 'gen_ai.execute_tool.duration';
export const METRIC_REFUSALS = 'toolcell.tool.refusals';
export const METRIC_OBSERVER_DROPS = 'toolcell.observer.dropped_calls';
/** The bucket boundaries the GenAI conventions advise for `gen_ai.execute_tool.duration`. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/**
 * `error.type` values toolcell reports (the conventions ask instrumentations to list them):
 * an error result, the host's safety timeout, any other failure (the tool threw, its server
 * crashed, an invalid result), an abort (stream end, interrupt, shutdown), a refused approval.
 */
export type ToolErrorType = 'tool_error' | 'timeout' | 'failed' | 'aborted' | 'approval_refused';

/** `error.type` of a terminal, or undefined for a successful completion. */
export function errorType(
  phase: 'completed' | 'failed' | 'aborted',
  isError: boolean,
  reason: string | undefined,
  refusalCode: string | undefined,
): ToolErrorType | undefined {
  if (phase === 'completed') return isError ? 'tool_error' : undefined;
  if (phase === 'failed') return reason === 'timeout' ? 'timeout' : 'failed';
  return refusalCode === 'approval_refused' ? 'approval_refused' : 'aborted';
}

/** Span name per the conventions: `execute_tool {gen_ai.tool.name}`. */
export function spanName(tool: string): string {
  return `${EXECUTE_TOOL} ${tool}`;
}
