/**
 * The one result of a `code_execution` call: what the script returned (JavaScript) or
 * printed (Python), its logs, a summary of its inner calls, and a clear error kind when it
 * failed. Inner results never appear here unless the script put them in its own output.
 */
import type { ToolResult } from '../host/types.ts';
import type { CallSummary, LogEntry, RunError, SessionInfo } from '../runtime/types.ts';
import type { ScriptLanguage } from './options.ts';

export interface TimeLimit {
  requestedMs: number;
  appliedMs: number;
  /** True when the request was above the ceiling and was lowered to it. */
  capped: boolean;
}

/** Per-tool totals of a script's calls. */
export interface CallTotals {
  [tool: string]: { ok: number; error: number; cancelled: number; totalMs: number };
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
  /** `fresh`: the run started in a new session, so no variable of an earlier run exists. */
  session: SessionInfo;
  /** The first calls in start order (all of them when there are few). */
  calls: CallSummary[];
  /** How many calls the script made in all. */
  callCount: number;
  /** Per-tool totals, present when `calls` was shortened. */
  callTotals?: CallTotals;
  timeLimit: TimeLimit;
}

/** Calls listed one by one before the list is summarized. */
export const LISTED_CALLS = 25;

/** Shortens a long call list to its first entries plus per-tool totals. */
export function summarizeCalls(calls: readonly CallSummary[]): Pick<ExecutionSummary, 'calls' | 'callCount' | 'callTotals'> {
  if (calls.length <= LISTED_CALLS) return { calls: [...calls], callCount: calls.length };
  const totals: CallTotals = {};
  for (const c of calls) {
    const t = (totals[c.name] ??= { ok: 0, error: 0, cancelled: 0, totalMs: 0 });
    t[c.status] += 1;
    t.totalMs += c.durationMs;
  }
  return { calls: calls.slice(0, LISTED_CALLS), callCount: calls.length, callTotals: totals };
}

/** Serializes a summary as the tool's result, keeping the text within `maxChars`. */
export function toToolResult(summary: ExecutionSummary, maxChars: number, endTurn: boolean): ToolResult {
  let text = JSON.stringify(summary);
  let structured = summary;
  if (text.length > maxChars) {
    // The bulky parts are the value and the output; keep a marked prefix of each.
    const budget = Math.max(256, Math.floor(maxChars / 4));
    const clip = (s: string | undefined) => (s !== undefined && s.length > budget ? `${s.slice(0, budget)}…[truncated]` : s);
    const valueText = summary.value === undefined ? undefined : JSON.stringify(summary.value);
    structured = {
      ...summary,
      ...(valueText !== undefined && valueText.length > budget ? { value: clip(valueText) } : {}),
      ...(summary.stdout !== undefined ? { stdout: clip(summary.stdout) } : {}),
      ...(summary.stderr !== undefined ? { stderr: clip(summary.stderr) } : {}),
      ...(summary.logs ? { logs: summary.logs.slice(0, 50).map((l) => ({ level: l.level, message: clip(l.message)! })) } : {}),
      truncated: true,
    };
    text = JSON.stringify(structured);
    if (text.length > maxChars) text = `${text.slice(0, maxChars)}…[result truncated at ${maxChars} characters]`;
  }
  return {
    content: [{ type: 'text', text }],
    structuredContent: structured as unknown as Record<string, unknown>,
    ...(summary.ok ? {} : { isError: true }),
    ...(endTurn ? { _meta: { 'agent-framework/endTurn': true } } : {}),
  };
}

/** A refusal that happens inside the tool (bad input, busy runner): a completed error result. */
export function refusalResult(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
