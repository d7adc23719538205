/**
 * The refusal sites of the dispatch path, decided synchronously before a call opens. A
 * refused call sends no lifecycle event at all (RFC-007 §3): the framework, or the script,
 * gets a clear error result instead.
 */
import { closestNames, echoName } from '../runtime/names.ts';
import { compileValidator } from '../runtime/declarations/validate.ts';
import type { InferenceRecord } from './open-call.ts';
import { abortReason } from './abort-reason.ts';
import type { DispatchRequest, RefusalCode, RegisteredTool } from './types.ts';

/** Host tool policy: return a reason to refuse, or undefined to allow. */
export type RefusalPolicy = (call: {
  tool: RegisteredTool;
  conversationId: string;
  origin: 'model' | 'script';
  input: Record<string, unknown>;
}) => string | undefined;

/** What the refusal sites read of the host that does not change from call to call (made once per host). */
export interface RefusalContext {
  toolNames: () => string[];
  connection: (serverId: string) => { isConnected: boolean } | undefined;
  policy?: RefusalPolicy;
  validateArguments: boolean;
  /** Told, once per input schema, what its validator could not honour (see `Validator.problems`). */
  schemaProblems?: (tool: RegisteredTool, problems: readonly string[]) => void;
  /** Most calls one inference may open, the model's and its scripts' together. */
  callsPerInference?: number;
  /** True when the id names a call of this host that has already ended. */
  parentEnded: (toolCallId: string) => boolean;
}

export interface Refusal {
  code: RefusalCode;
  message: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether `value` is a call timeout: milliseconds above 0, `Infinity` for none. */
export function isTimeout(value: unknown): value is number {
  return typeof value === 'number' && value > 0;
}

/** A rejected timeout for an error message; never the value's own `toString` (a caller's object). */
export function describeTimeout(value: unknown): string {
  return typeof value === 'number' ? String(value) : value === null ? 'null' : typeof value;
}

/**
 * The first refusal that applies to `request`, or undefined when the call may open.
 * `inference` and `tool` are what its ids name on this host (undefined when unknown).
 */
export function checkRefusal(
  request: DispatchRequest,
  closing: boolean,
  inference: InferenceRecord | undefined,
  tool: RegisteredTool | undefined,
  ctx: RefusalContext,
): Refusal | undefined {
  if (closing) return { code: 'shutting_down', message: 'The tool host is shutting down; the call was not run.' };
  if (typeof request.name !== 'string' || request.name === '') {
    return { code: 'unknown_tool', message: 'A tool call needs a tool name.' };
  }
  if (request.timeoutMs !== undefined && !isTimeout(request.timeoutMs)) {
    return {
      code: 'invalid_request',
      message: `"${echoName(request.name)}" was not run: timeoutMs must be a number of milliseconds above 0 (Infinity for none), not ${describeTimeout(request.timeoutMs)}.`,
    };
  }
  if (request.signal?.aborted === true) {
    return { code: 'aborted', message: `"${echoName(request.name)}" was not run: its signal was already aborted (${abortReason(request.signal.reason)}).` };
  }
  if (!inference) {
    return { code: 'unknown_inference', message: `Unknown inference "${request.inferenceId}": call beginInference first.` };
  }
  if (request.parentToolCallId !== undefined && ctx.parentEnded(request.parentToolCallId)) {
    // A script outliving its parent's terminal (an abort, a safety timeout) may not open calls:
    // an observer would see a child after its parent's end.
    return {
      code: 'parent_ended',
      message: `"${echoName(request.name)}" was not run: its parent call ${request.parentToolCallId} has already ended.`,
    };
  }
  if (!tool) {
    const near = closestNames(request.name, ctx.toolNames());
    return {
      code: 'unknown_tool',
      message: `Unknown tool "${echoName(request.name)}".${near.length ? ` Closest tools: ${near.join(', ')}.` : ''}`,
    };
  }
  if (tool.kind === 'server' && !ctx.connection(tool.serverId!)?.isConnected) {
    return { code: 'server_unavailable', message: `Tool "${tool.name}" is unavailable: server "${tool.serverId}" is not connected.` };
  }
  if (ctx.callsPerInference !== undefined && inference.calls >= ctx.callsPerInference) {
    return {
      code: 'budget_exceeded',
      message: `The call budget of ${ctx.callsPerInference} calls for this inference is spent; "${tool.name}" was not run.`,
    };
  }
  const budget = request.executionBudget;
  if (budget !== undefined && budget.opened >= budget.limit) {
    return {
      code: 'execution_budget',
      message: `The call budget of ${budget.limit} calls per execution is spent; "${tool.name}" was not run. Do more per call (batch or filter in fewer calls), or continue in another execution.`,
    };
  }
  const origin = request.parentToolCallId ? 'script' : 'model';
  if (origin === 'script' && tool.scriptCallable === false) {
    if (tool.callers === 'model') return { code: 'caller_not_allowed', message: `Tool "${tool.name}" can only be called directly, not from a script.` };
    return { code: 'recursion', message: `Tool "${tool.name}" cannot be called from a script.` };
  }
  if (origin === 'model' && tool.modelCallable === false) {
    return { code: 'caller_not_allowed', message: `Tool "${tool.name}" can only be called from a script (code_execution), not directly.` };
  }
  const input = request.input === undefined ? {} : request.input;
  if (!isPlainObject(input)) {
    return { code: 'invalid_arguments', message: `Arguments of "${tool.name}" must be a JSON object.` };
  }
  const denied = ctx.policy?.({ tool, conversationId: inference.conversationId, origin, input });
  if (denied) return { code: 'policy', message: `Tool "${tool.name}" was refused by host policy: ${denied}` };
  if (ctx.validateArguments) {
    const verdict = compileValidator(tool.inputSchema, (problems) => ctx.schemaProblems?.(tool, problems)).validate(input);
    if (!verdict.ok) {
      return { code: 'invalid_arguments', message: `Invalid arguments for "${tool.name}": ${verdict.errors.slice(0, 5).join('; ')}` };
    }
  }
  return undefined;
}
