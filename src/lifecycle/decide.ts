/**
 * RFC-007 §6.4: what one connection hears about one call, decided in the spec's order —
 * grant and narrowing, filter, whether arguments were requested, whether they may be sent,
 * then field selection and the bound.
 */
import type { CallFacts, CompiledFilter, RuleInput } from './decision-types.ts';
import { isPlainObject, selectFields } from './field-select.ts';
import { matchFilter } from './filter-match.ts';
import { inNarrowing, type LifecycleGrant } from './grants.ts';
import { boundInput, DEFAULT_INPUT_BOUND_BYTES } from './input-bound.ts';

export type { CallFacts } from './decision-types.ts';

/**
 * The input-related members of a `started` notification for one connection. Members are
 * present only when set, never `false`. An empty object means metadata only.
 */
export interface OpeningDecision {
  input?: Record<string, unknown>;
  inputAltered?: true;
  inputWithheld?: true;
}

/** Options for {@link decideOpening}. */
export interface DecideOptions {
  /** Serialized UTF-8 bound for `input`. Default 16384. */
  inputBoundBytes?: number;
  /** Redact values of credential-named members (RFC-007 §5.2, §10). Default true. */
  redactCredentials?: boolean;
}

const METADATA_ONLY: OpeningDecision = Object.freeze({});
const WITHHELD: OpeningDecision = Object.freeze({ inputWithheld: true });
const METADATA_ONLY_WIRE = Object.freeze({ decision: METADATA_ONLY });
const WITHHELD_WIRE = Object.freeze({ decision: WITHHELD });

/**
 * Decides a call's opening phase for one connection: `null` means the connection hears
 * nothing about the call (no opening, and so no terminal).
 *
 * Excluding a connection's own tools (RFC-007 §7.1) is the caller's job: it knows which
 * connection it is deciding for.
 */
export function decideOpening(
  call: CallFacts,
  grant: LifecycleGrant,
  filter: CompiledFilter | null,
  options: DecideOptions = {},
): OpeningDecision | null {
  return decideOpeningWire(call, grant, filter, options)?.decision ?? null;
}

/**
 * {@link decideOpening}, with the chosen input already serialized (`inputJson`, present
 * exactly when `decision.input` is): the emitter writes it into the line as it is, so an
 * opening's arguments are serialized once, not once for the bound and again for the wire.
 */
export function decideOpeningWire(
  call: CallFacts,
  grant: LifecycleGrant,
  filter: CompiledFilter | null,
  options: DecideOptions = {},
): { decision: OpeningDecision; inputJson?: string } | null {
  // 1. The grant and its narrowing.
  if (grant.observe === null || !inNarrowing(grant.observe, call)) return null;
  // 2–3. The filter; with none, every granted call is reported and no arguments are requested.
  let requested: RuleInput = false;
  if (filter !== null) {
    const verdict = matchFilter(filter, call);
    if (!verdict.report) return null;
    requested = verdict.input;
  }
  if (requested === false) return METADATA_ONLY_WIRE;
  // 4. A connection without the inputs grant never learns that arguments were withheld.
  if (grant.inputs === null) return METADATA_ONLY_WIRE;
  if (!inNarrowing(grant.inputs, call) || !mayCarryInput(call)) return WITHHELD_WIRE;
  if (!isPlainObject(call.input)) return WITHHELD_WIRE;
  // 5. Field selection (never counts as alteration), then the bound.
  const selected = requested === true ? call.input : selectFields(call.input, requested);
  const bounded = boundInput(selected, {
    maxBytes: options.inputBoundBytes ?? DEFAULT_INPUT_BOUND_BYTES,
    redactCredentials: options.redactCredentials ?? true,
  });
  if (!bounded.ok) return WITHHELD_WIRE;
  return {
    decision: bounded.altered ? { input: bounded.input, inputAltered: true } : { input: bounded.input },
    inputJson: bounded.json,
  };
}

/**
 * Steps 1–3 only: whether the connection hears about the call at all. Cheap (no input work),
 * for counting a call dropped for a full queue exactly when the observer would have had it.
 */
export function reportsCall(call: CallFacts, grant: LifecycleGrant, filter: CompiledFilter | null): boolean {
  if (grant.observe === null || !inNarrowing(grant.observe, call)) return false;
  return filter === null || matchFilter(filter, call).report;
}

/**
 * RFC-007 §4.3 class exclusions, whatever the narrowing says: an unclassed tool, or one any
 * of whose classes is `comms`, never carries arguments.
 */
export function mayCarryInput(call: Pick<CallFacts, 'classes'>): boolean {
  return call.classes.length > 0 && !call.classes.includes('comms');
}

/**
 * Whether a terminal may still go to a connection that received the call's opening phase:
 * only while `observe` is granted and its narrowing still covers the call (RFC-007 §4.5).
 * A filter change does not matter here; the terminal of an opened call is always sent.
 */
export function mayDeliverTerminal(call: Pick<CallFacts, 'tool' | 'classes' | 'conversationId'>, grant: LifecycleGrant): boolean {
  return grant.observe !== null && inNarrowing(grant.observe, call);
}
