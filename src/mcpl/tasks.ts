/**
 * MCP 2025-11-25 tasks, as far as toolcell supports them when reading a provider's listing.
 *
 * A tool whose `execution.taskSupport` is `'required'` can only be called with
 * `params.task` (task augmentation); a plain `tools/call` is refused by the server. Until
 * toolcell calls such tools as tasks, listing one would give the model a tool that always
 * fails, so it is left out of the listing with a diagnostic naming it (issue 18 allows this
 * fallback). `'optional'` and `'forbidden'` (or absent) tools are called plainly, which the
 * spec allows for both.
 */
import type { ServerToolListing } from '../host/registry.ts';

/** The diagnostic code for a tool left out because it can only be called as a task. */
export const TASK_REQUIRED_UNSUPPORTED = 'task-required-unsupported';

/** A tool's declared task support; `'forbidden'` when absent or not one of the spec's values. */
export function taskSupportOf(tool: unknown): 'required' | 'optional' | 'forbidden' {
  const execution = (tool as { execution?: unknown } | null)?.execution;
  const value = execution !== null && typeof execution === 'object' ? (execution as { taskSupport?: unknown }).taskSupport : undefined;
  return value === 'required' || value === 'optional' ? value : 'forbidden';
}

/** Splits a listing into the tools toolcell can call and the names of those it cannot. */
export function partitionByTaskSupport(tools: readonly ServerToolListing[]): { callable: ServerToolListing[]; taskRequired: string[] } {
  const callable: ServerToolListing[] = [];
  const taskRequired: string[] = [];
  for (const tool of tools) {
    if (taskSupportOf(tool) === 'required') taskRequired.push(tool.name);
    else callable.push(tool);
  }
  return { callable, taskRequired };
}
