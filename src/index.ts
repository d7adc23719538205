/**
 * toolcell: run model-written scripts that call tools, with every tool call — the model's own
 * and every call from inside a script — dispatched through one path and reported to MCPL
 * tool-lifecycle observers.
 */
export { ToolHost, type ToolHostOptions, type ToolHostEvents, type Stream, type ConversationEndHook } from './host/tool-host.ts';
export { textResult, errorResult, resultText } from './host/results.ts';
export type { ZodToolDefinition } from './host/zod-tool.ts';
export type {
  ToolResult,
  ContentBlock,
  HostToolDefinition,
  HostToolContext,
  DispatchRequest,
  ExecutionBudget,
  DispatchOutcome,
  DispatchStatus,
  RefusalCode,
  ToolListing,
  RegisteredTool,
  ApprovalGate,
  ApprovalRequest,
  ApprovalDecision,
  ApprovalScope,
  BatchApprovalRequest,
  BatchApprovalTool,
  BatchApprovalDecision,
  CallSite,
  ProgressUpdate,
} from './host/types.ts';
export type { ApprovalGrants, ConversationGrant, GrantKeeper } from './host/approval-grants.ts';
export { scanToolReferences } from './approvals/scan.ts';
export { ElicitationGate, type ApprovalRules, type ElicitingClient } from './approvals/elicitation-gate.ts';
export { TOOL_CLASSES, isToolClass, type ToolClass } from './vocabulary/classes.ts';
export type { RefusalPolicy } from './host/refusals.ts';
export { serverConfigErrors, type ServerConfig, type StdioServerConfig, type HttpServerConfig } from './mcpl/config.ts';
export type { WireFrame } from './mcpl/transports/types.ts';
// Types only from here on: the MCP SDK (and zod with it) loads with the first server connection,
// not with `import 'toolcell'` (it was ~17 MB of RSS and half of the import's time). The OAuth
// providers, which are the SDK's or built on it, are in `toolcell/auth`.
export type { McplConnection } from './mcpl/connection.ts';
export type { ServerRequestContext, ServerRequestHandlers } from './mcpl/client-features/types.ts';
export { ConnectError, type ConnectErrorCode } from './mcpl/connect-error.ts';
export type { OAuthClientProvider, AuthorizationCodeProvider } from './mcpl/auth.ts';
export type { InteractiveAuthOptions, ClientCredentialsProviderOptions, PrivateKeyJwtProviderOptions } from './mcpl/auth/index.ts';
export type { OperatorPolicy, NarrowingSpec } from './lifecycle/grants.ts';
export { PARENT_META_KEY, type HostLifecycleEvent, type LifecycleParams, type ToolPhase } from './lifecycle/events.ts';
export { registerCodeExecution, ToolError, RESULT_ENVELOPE_SCHEMA, type CodeExecution, type CodeExecutionOptions, type ResultEnvelope } from './code-execution/index.ts';
export { renderDeclarations, renderPythonStubs, validateArguments } from './runtime/declarations/index.ts';
export { PythonRunner } from './runtime/python/index.ts';
