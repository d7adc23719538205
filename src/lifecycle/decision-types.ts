/**
 * Types shared by the pure RFC-007 decision modules: the facts about one call that a
 * decision reads, and a compiled `tools/observe` filter.
 */
import type { ToolClass } from '../vocabulary/classes.ts';
import type { CompiledPattern } from '../vocabulary/patterns.ts';

/** What the lifecycle decisions know about one call. */
export interface CallFacts {
  /** Model-facing tool name, including host namespacing (`x--run`). */
  tool: string;
  /** Effective class (RFC-008 §5); empty for an unclassed tool. */
  classes: readonly ToolClass[];
  /** Providing connection, for server tools only. */
  serverId?: string;
  /** The providing server's own tool name; present iff `serverId` is. */
  serverTool?: string;
  conversationId: string;
  /** The arguments as the host passes them to the tool. */
  input: unknown;
}

/** What a filter rule asks for: no arguments, all of them, or the listed field paths. */
export type RuleInput = false | true | readonly string[];

/** The compiled `match` of one rule; absent members match anything. */
export interface CompiledMatch {
  readonly tool?: CompiledPattern;
  readonly serverTool?: CompiledPattern;
  readonly serverId?: CompiledPattern;
  readonly conversationId?: CompiledPattern;
  readonly class?: ToolClass;
}

/** What a filter says about one call. `input` is meaningful only when `report` is true. */
export interface FilterVerdict {
  readonly report: boolean;
  readonly input: RuleInput;
}

/** One compiled filter rule. */
export interface CompiledRule {
  readonly match: CompiledMatch;
  readonly report: boolean;
  readonly input: RuleInput;
  /** `report` and `input` as the verdict of a call this rule decides, made once at compile time. */
  readonly verdict: FilterVerdict;
}

/**
 * A connection's `tools/observe` filter, compiled once when it is set. `rules: []` (pause)
 * is a filter with no rules; "no filter" is represented by `null` where a filter is expected.
 */
export interface CompiledFilter {
  readonly rules: readonly CompiledRule[];
  /** The `rules` array as the server sent it, for showing operators (RFC-007 §10). */
  readonly source: readonly unknown[];
}
