/**
 * Applies a compiled `tools/observe` filter to one call (RFC-007 §6.1): the first rule whose
 * `match` matches decides; a call no rule matches is not reported.
 */
import type { CallFacts, CompiledFilter, CompiledMatch, FilterVerdict } from './decision-types.ts';

export type { FilterVerdict } from './decision-types.ts';

const NOT_REPORTED: FilterVerdict = Object.freeze({ report: false, input: false });

/**
 * First-match evaluation. A rule naming `serverTool` or `serverId` never matches a host
 * tool (it has neither); a rule naming `class` never matches an unclassed tool.
 */
export function matchFilter(filter: CompiledFilter, call: CallFacts): FilterVerdict {
  for (const rule of filter.rules) {
    if (!ruleMatches(rule.match, call)) continue;
    // Made when the filter was compiled: no object per call.
    return rule.report ? rule.verdict : NOT_REPORTED;
  }
  return NOT_REPORTED;
}

/** Whether every member present in `match` matches the call; `{}` matches every call. */
export function ruleMatches(match: CompiledMatch, call: CallFacts): boolean {
  if (match.tool !== undefined && !match.tool.matches(call.tool)) return false;
  if (match.serverTool !== undefined && (call.serverTool === undefined || !match.serverTool.matches(call.serverTool))) {
    return false;
  }
  if (match.serverId !== undefined && (call.serverId === undefined || !match.serverId.matches(call.serverId))) {
    return false;
  }
  if (match.conversationId !== undefined && !match.conversationId.matches(call.conversationId)) return false;
  if (match.class !== undefined && !call.classes.includes(match.class)) return false;
  return true;
}
