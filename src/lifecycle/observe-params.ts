/**
 * Strict parser for `tools/observe` params (RFC-007 §6.1, §6.6, §13).
 *
 * Anything the §13 schema rejects is `-32602`, and so is anything over the host's limits
 * (with `data.limit`). Unknown members are rejected at every level, so a misspelled key can
 * never widen a rule or clear a filter. A rejected request changes nothing: the caller keeps
 * the previous filter.
 */
import { isToolClass, TOOL_CLASSES } from '../vocabulary/classes.ts';
import type { CompiledFilter, CompiledMatch, CompiledRule, RuleInput } from './decision-types.ts';
import { compilePattern } from '../vocabulary/patterns.ts';

/** Host limits on a filter. String lengths count Unicode code points. */
export interface ObserveLimits {
  /** Rules per request. */
  readonly rules: number;
  /** Field paths per rule. */
  readonly pathsPerRule: number;
  /** Code points per pattern and per field path. */
  readonly stringLength: number;
}

/** The limits toolcell applies: the RFC-007 §6.6 minimums, which equal the §13 schema's bounds. */
export const OBSERVE_LIMITS: ObserveLimits = Object.freeze({
  rules: 64,
  pathsPerRule: 64,
  stringLength: 256,
});

/** Which limit a request exceeded, as sent in the error's `data.limit`. */
export type ObserveLimitName = keyof ObserveLimits;

/** JSON-RPC Invalid params. */
export const INVALID_PARAMS = -32602;

/** A rejected `tools/observe` request: the JSON-RPC error to answer with. */
export interface ObserveParamsError {
  ok: false;
  code: typeof INVALID_PARAMS;
  /** Names the offending member by its path in `params`. */
  message: string;
  /** Present only when a limit was exceeded. */
  data?: { limit: ObserveLimitName };
}

/** The outcome of parsing `tools/observe` params. `filter: null` clears the filter. */
export type ObserveParamsResult = { ok: true; filter: CompiledFilter | null } | ObserveParamsError;

const MATCH_PATTERN_KEYS = ['tool', 'serverTool', 'serverId', 'conversationId'] as const;
const RULE_KEYS: ReadonlySet<string> = new Set(['match', 'report', 'input']);
const CLASS_LIST = TOOL_CLASSES.join(', ');

/** Thrown only inside this module, to unwind a deep validation to {@link parseObserveParams}. */
class Reject {
  constructor(
    readonly message: string,
    readonly limit?: ObserveLimitName,
  ) {}
}

/**
 * Parses and compiles `tools/observe` params. `undefined` (params omitted on the wire) reads
 * as `{}`, which clears the filter; explicit `null`, arrays and scalars are invalid.
 */
export function parseObserveParams(
  params: unknown,
  limits: ObserveLimits = OBSERVE_LIMITS,
): ObserveParamsResult {
  try {
    return { ok: true, filter: parse(params === undefined ? {} : params, limits) };
  } catch (err) {
    if (!(err instanceof Reject)) throw err;
    const error: ObserveParamsError = { ok: false, code: INVALID_PARAMS, message: err.message };
    if (err.limit !== undefined) error.data = { limit: err.limit };
    return error;
  }
}

function parse(params: unknown, limits: ObserveLimits): CompiledFilter | null {
  const record = asObject(params, 'params');
  for (const key of Object.keys(record)) {
    if (key !== 'rules' && key !== '_meta') {
      throw new Reject(`params: unknown member ${JSON.stringify(key)} (only "rules" and "_meta" are allowed)`);
    }
  }
  if (Object.hasOwn(record, '_meta')) asObject(record._meta, 'params._meta');
  if (!Object.hasOwn(record, 'rules') || record.rules === null) return null;
  const rules = record.rules;
  if (!Array.isArray(rules)) throw new Reject(`params.rules: expected an array or null, got ${kind(rules)}`);
  // Checked before looking inside, so an oversized request costs nothing to refuse.
  if (rules.length > limits.rules) {
    throw new Reject(`params.rules: ${rules.length} rules exceed the limit of ${limits.rules}`, 'rules');
  }
  const compiled = rules.map((rule, i) => parseRule(rule, `params.rules[${i}]`, limits));
  return Object.freeze({ rules: Object.freeze(compiled), source: Object.freeze(rules.slice()) });
}

function parseRule(rule: unknown, at: string, limits: ObserveLimits): CompiledRule {
  const record = asObject(rule, at);
  for (const key of Object.keys(record)) {
    if (!RULE_KEYS.has(key)) throw new Reject(`${at}: unknown member ${JSON.stringify(key)}`);
  }
  if (!Object.hasOwn(record, 'match')) throw new Reject(`${at}: "match" is required`);
  const match = parseMatch(record.match, `${at}.match`, limits);
  let report = true;
  if (Object.hasOwn(record, 'report')) {
    if (typeof record.report !== 'boolean') throw new Reject(`${at}.report: expected a boolean, got ${kind(record.report)}`);
    report = record.report;
  }
  const input = Object.hasOwn(record, 'input') ? parseInput(record.input, `${at}.input`, limits) : false;
  return Object.freeze({ match, report, input, verdict: Object.freeze({ report, input }) });
}

function parseMatch(value: unknown, at: string, limits: ObserveLimits): CompiledMatch {
  const record = asObject(value, at);
  const match: { -readonly [K in keyof CompiledMatch]: CompiledMatch[K] } = {};
  for (const key of Object.keys(record)) {
    const member = record[key];
    if (key === 'class') {
      if (!isToolClass(member)) {
        throw new Reject(`${at}.class: expected one of ${CLASS_LIST}, got ${JSON.stringify(member) ?? kind(member)}`);
      }
      match.class = member;
    } else if ((MATCH_PATTERN_KEYS as readonly string[]).includes(key)) {
      const pattern = boundedString(member, `${at}.${key}`, limits);
      match[key as (typeof MATCH_PATTERN_KEYS)[number]] = compilePattern(pattern);
    } else {
      throw new Reject(`${at}: unknown member ${JSON.stringify(key)} (a rule must not match more than its author wrote)`);
    }
  }
  return Object.freeze(match);
}

function parseInput(value: unknown, at: string, limits: ObserveLimits): RuleInput {
  if (typeof value === 'boolean') return value;
  if (!Array.isArray(value)) throw new Reject(`${at}: expected a boolean or an array of field paths, got ${kind(value)}`);
  if (value.length > limits.pathsPerRule) {
    throw new Reject(`${at}: ${value.length} field paths exceed the limit of ${limits.pathsPerRule}`, 'pathsPerRule');
  }
  const paths = value.map((path, i) => {
    const text = boundedString(path, `${at}[${i}]`, limits);
    if (text.length === 0) throw new Reject(`${at}[${i}]: a field path must not be empty`);
    return text;
  });
  return Object.freeze(paths);
}

function boundedString(value: unknown, at: string, limits: ObserveLimits): string {
  if (typeof value !== 'string') throw new Reject(`${at}: expected a string, got ${kind(value)}`);
  if (exceedsCodePoints(value, limits.stringLength)) {
    throw new Reject(`${at}: longer than ${limits.stringLength} code points`, 'stringLength');
  }
  return value;
}

/** Counts code points only when UTF-16 length could be over the limit; stops at the limit. */
function exceedsCodePoints(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point; lone surrogates count alone.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (++count > max) return true;
  }
  return false;
}

function asObject(value: unknown, at: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Reject(`${at}: expected an object, got ${kind(value)}`);
  }
  return value as Record<string, unknown>;
}

function kind(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
