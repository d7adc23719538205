/**
 * RFC-007 §4: a connection's lifecycle grant, computed from operator policy.
 *
 * Both paths are denied unless the operator's allowlist names them (§4.1). `inputs` counts
 * only together with `observe`, and is never unconditional: an `inputs` grant the operator
 * did not narrow is narrowed to no tools (§4.3). The named default class policy applies only
 * where the operator selects it with `classes: "default"`, never by omission.
 */
import { parseClassList, type ToolClass } from '../vocabulary/classes.ts';
import {
  grantedPaths,
  MCPL_CAPABILITY_PATHS,
  TOOL_LIFECYCLE_INPUTS,
  TOOL_LIFECYCLE_OBSERVE,
  unmatchedEntries,
} from '../mcpl/capabilities.ts';
import type { CallFacts } from './decision-types.ts';
import { compilePattern, matchesAny, type CompiledPattern } from '../vocabulary/patterns.ts';

/** An operator's narrowing for one lifecycle leaf, as written in policy. */
export interface NarrowingSpec {
  /** RFC-007 §6.2 patterns over the model-facing tool name. */
  tools?: string[];
  /** Classes the tool's effective class must intersect, or `"default"` for {@link DEFAULT_INPUT_CLASSES}. */
  classes?: ToolClass[] | 'default';
  /** RFC-007 §6.2 patterns over `conversationId`. */
  conversations?: string[];
}

/** The operator's policy for one connection (the conformance vectors' `policy` shape). */
export interface OperatorPolicy {
  /** Allowlist of capability paths; `*` stands for one segment. Absent means nothing. */
  enabledCapabilities?: string[];
  toolLifecycle?: { observe?: NarrowingSpec; inputs?: NarrowingSpec };
}

/** A compiled narrowing. A call is inside when it satisfies every key present; `{}` admits all. */
export interface Narrowing {
  readonly tools?: readonly CompiledPattern[];
  readonly classes?: ReadonlySet<ToolClass>;
  readonly conversations?: readonly CompiledPattern[];
}

/** Codes of problems found while computing a grant. */
export type GrantDiagnosticCode =
  | 'inputs-without-observe'
  | 'inputs-unnarrowed'
  | 'narrowing-without-grant'
  | 'invalid-narrowing'
  | 'unknown-class'
  | 'grants-nothing'
  | 'advertised-denied';

/** One problem found while computing a grant, for the operator's log. */
export interface GrantDiagnostic {
  code: GrantDiagnosticCode;
  message: string;
}

/** A connection's effective lifecycle grant. `null` means the leaf is not in force. */
export interface LifecycleGrant {
  /** Narrowing of `toolLifecycle.observe`, or null when not granted. */
  observe: Narrowing | null;
  /** Narrowing of `toolLifecycle.inputs`, or null when not granted or ineffective (no `observe`). */
  inputs: Narrowing | null;
  /** Every granted capability path, in vocabulary order (the `effectiveCapabilities` to send). */
  paths: string[];
  diagnostics: GrantDiagnostic[];
}

/** Options for {@link computeLifecycleGrant}. */
export interface GrantOptions {
  /** What the server advertised (see `advertisedPaths`); when given, unadvertised paths are not granted. */
  advertised?: ReadonlySet<string>;
  /** The capability vocabulary. Default: every path toolcell knows. */
  knownPaths?: readonly string[];
}

/**
 * The named default `inputs` class policy (RFC-007 §4.3): classes whose arguments are
 * ordinarily safe to observe. `memory`, `notes` and `control` are left to explicit choice;
 * `comms` is never a choice.
 */
export const DEFAULT_INPUT_CLASSES: ReadonlySet<ToolClass> = new Set<ToolClass>([
  'computer',
  'shell',
  'files',
  'web',
  'media',
  'body',
]);

/** A narrowing no call is inside. */
export const NARROWED_TO_NOTHING: Narrowing = Object.freeze({ tools: Object.freeze([]) });

const SPEC_KEYS: ReadonlySet<string> = new Set(['tools', 'classes', 'conversations']);

/** Computes the lifecycle grant for one connection from operator policy. */
export function computeLifecycleGrant(policy: OperatorPolicy, options: GrantOptions = {}): LifecycleGrant {
  const diagnostics: GrantDiagnostic[] = [];
  const knownPaths = options.knownPaths ?? MCPL_CAPABILITY_PATHS;
  const enabled: readonly unknown[] = Array.isArray(policy.enabledCapabilities) ? policy.enabledCapabilities : [];
  for (const entry of unmatchedEntries(enabled, knownPaths)) {
    diagnostics.push({ code: 'grants-nothing', message: `enabledCapabilities entry ${JSON.stringify(entry)} names no capability path and grants nothing` });
  }
  const granted = grantedPaths(enabled, knownPaths);
  if (options.advertised !== undefined) {
    for (const path of [...granted]) if (!options.advertised.has(path)) granted.delete(path);
    for (const path of [TOOL_LIFECYCLE_OBSERVE, TOOL_LIFECYCLE_INPUTS]) {
      if (options.advertised.has(path) && !granted.has(path)) {
        diagnostics.push({ code: 'advertised-denied', message: `${path} was advertised and is denied: the operator's policy does not name it` });
      }
    }
  }
  const specs = policy.toolLifecycle ?? {};
  const hasObserve = granted.has(TOOL_LIFECYCLE_OBSERVE);
  const hasInputs = granted.has(TOOL_LIFECYCLE_INPUTS);
  for (const [leaf, has] of [['observe', hasObserve], ['inputs', hasInputs]] as const) {
    if (!has && specs[leaf] !== undefined) {
      diagnostics.push({ code: 'narrowing-without-grant', message: `a narrowing for toolLifecycle.${leaf} is set but the path is not granted; it has no effect` });
    }
  }

  const observe = hasObserve ? compileNarrowing(specs.observe, 'observe', diagnostics) ?? {} : null;
  let inputs: Narrowing | null = null;
  if (hasInputs) {
    if (!hasObserve) {
      diagnostics.push({ code: 'inputs-without-observe', message: 'toolLifecycle.inputs is granted without toolLifecycle.observe, so nothing is delivered' });
    }
    const narrowing = compileNarrowing(specs.inputs, 'inputs', diagnostics);
    if (narrowing === undefined) {
      diagnostics.push({ code: 'inputs-unnarrowed', message: 'toolLifecycle.inputs has no narrowing, so it is narrowed to no tools (select classes: "default" or name tools, classes or conversations)' });
    }
    if (hasObserve) inputs = narrowing ?? NARROWED_TO_NOTHING;
  }
  return { observe, inputs, paths: knownPaths.filter((p) => granted.has(p)), diagnostics };
}

/**
 * Whether a call is inside a narrowing: its tool name matches a `tools` pattern, its class
 * intersects `classes` (an unclassed tool intersects nothing), and its conversation matches
 * a `conversations` pattern, for each key the narrowing states.
 */
export function inNarrowing(narrowing: Narrowing, call: Pick<CallFacts, 'tool' | 'classes' | 'conversationId'>): boolean {
  if (narrowing.tools !== undefined && !matchesAny(narrowing.tools, call.tool)) return false;
  if (narrowing.classes !== undefined && !call.classes.some((c) => narrowing.classes!.has(c))) return false;
  if (narrowing.conversations !== undefined && !matchesAny(narrowing.conversations, call.conversationId)) return false;
  return true;
}

/**
 * Compiles a spec; `undefined` when it states no key (unnarrowed). A malformed spec narrows
 * to nothing, since reading past a typo would widen the grant.
 */
function compileNarrowing(spec: unknown, leaf: string, diagnostics: GrantDiagnostic[]): Narrowing | undefined {
  if (spec === undefined) return undefined;
  const invalid = (why: string): Narrowing => {
    diagnostics.push({ code: 'invalid-narrowing', message: `toolLifecycle.${leaf} narrowing ${why}; narrowed to nothing` });
    return NARROWED_TO_NOTHING;
  };
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return invalid('is not an object');
  const record = spec as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !SPEC_KEYS.has(k) && record[k] !== undefined);
  if (unknown.length > 0) return invalid(`has unknown key(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  const narrowing: { -readonly [K in keyof Narrowing]: Narrowing[K] } = {};
  let stated = false;
  for (const key of ['tools', 'conversations'] as const) {
    const value = record[key];
    if (value === undefined) continue;
    stated = true;
    if (!Array.isArray(value) || !value.every((p) => typeof p === 'string')) return invalid(`"${key}" is not a list of patterns`);
    narrowing[key] = Object.freeze(value.map((p: string) => compilePattern(p)));
  }
  const classes = record.classes;
  if (classes !== undefined) {
    stated = true;
    if (classes === 'default') {
      narrowing.classes = DEFAULT_INPUT_CLASSES;
    } else if (Array.isArray(classes)) {
      const parsed = parseClassList(classes);
      if (parsed.dropped.length > 0) {
        diagnostics.push({ code: 'unknown-class', message: `toolLifecycle.${leaf} narrowing names unknown class(es) ${parsed.dropped.join(', ')}; ignored` });
      }
      narrowing.classes = new Set(parsed.classes);
    } else {
      return invalid('"classes" is neither a list of classes nor "default"');
    }
  }
  return stated ? Object.freeze(narrowing) : undefined;
}
