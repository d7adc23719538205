/**
 * The one result of a `code_execution` call: what the script returned (JavaScript) or
 * printed (Python), its logs, a summary of its inner calls, and a clear error kind when it
 * failed. Inner results never appear here unless the script put them in its own output.
 */
import type { ToolResult } from '../host/types.ts';
import type { CallSummary, LogEntry, RunError } from '../runtime/types.ts';
import type { ScriptLanguage } from './options.ts';

export interface TimeLimit {
  requestedMs: number;
  appliedMs: number;
  /** True when the request was above the ceiling and was lowered to it. */
  capped: boolean;
}

export interface ExecutionSummary {
  language: ScriptLanguage;
  ok: boolean;
  value?: unknown;
  stdout?: string;
  stderr?: string;
  returnCode?: number;
  logs?: LogEntry[];
  error?: RunError;
  truncated?: boolean;
  calls: CallSummary[];
  timeLimit: TimeLimit;
}

/** Serializes a summary as the tool's result, capped at `maxChars` of text. */
export function toToolResult(summary: ExecutionSummary, maxChars: number, endTurn: boolean): ToolResult {
  let text = JSON.stringify(summary, null, 1);
  let structured: Record<string, unknown> | undefined = summary as unknown as Record<string, unknown>;
  if (text.length > maxChars) {
    // Keep the shape readable: the error, the call summary and a marked prefix of the rest.
    structured = undefined;
    text = `${text.slice(0, maxChars)}\n…[result truncated at ${maxChars} characters]`;
  }
  return {
    content: [{ type: 'text', text }],
    ...(structured ? { structuredContent: structured } : {}),
    ...(summary.ok ? {} : { isError: true }),
    ...(endTurn ? { _meta: { 'agent-framework/endTurn': true } } : {}),
  };
}

/** A refusal that happens inside the tool (bad input, busy runner): a completed error result. */
export function refusalResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
