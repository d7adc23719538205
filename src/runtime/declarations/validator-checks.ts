/**
 * The building blocks of compiled validators: run state, error reporting, and the checks
 * for keywords that need no sub-schemas (types, values, numbers, strings) plus the logic
 * that picks which `anyOf`/`oneOf` branch to blame.
 */

import { isPyIdentifier } from '../names.ts';
import { jsonEqual, kindOf, preview } from './json.ts';

/** Mutable state of one validation run. */
export interface State {
  root: string;
  path: Array<string | number>;
  errors: string[];
  truncated: boolean;
  depth: number;
}

/** A compiled schema. */
export interface Node {
  /** Validates `value`, reporting into `state`; returns whether it passed. */
  check(value: unknown, state: State): boolean;
  /** Whether `value` passes `type`, `const` and `enum` alone (to tell which branch of an `anyOf` was meant). */
  accepts(value: unknown): boolean;
  /** What `type`/`const`/`enum` ask for, e.g. `integer` or `"a" or "b"`; none when they are absent. */
  label: string | undefined;
  /** Whether the label names values (const/enum), so a failure should quote the value. */
  quotesValue: boolean;
}

export const MAX_ERRORS = 20;
/** How deep `$ref`s may nest during one validation before the schema is deemed circular. */
export const MAX_REF_DEPTH = 256;
const MAX_LISTED = 10;

export function formatPath(state: State): string {
  let out = state.root;
  for (const seg of state.path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += isPyIdentifier(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`;
  }
  return out;
}

export function report(state: State, message: string): void {
  if (state.errors.length < MAX_ERRORS) state.errors.push(`${formatPath(state)}: ${message}`);
  else state.truncated = true;
}

function listed(items: string[], joiner: string): string {
  return items.length > MAX_LISTED ? `${items.slice(0, MAX_LISTED).join(joiner)}${joiner}…` : items.join(joiner);
}

const TYPE_TESTS: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  array: (v) => Array.isArray(v),
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
};

function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export type Check = (value: unknown, state: State) => boolean;
export type SchemaRecord = { readonly [keyword: string]: unknown };

export const ALWAYS: Node = { check: () => true, accepts: () => true, label: undefined, quotesValue: false };
export const NOTHING: Node = {
  check: (_v, state) => {
    report(state, 'no value is allowed here');
    return false;
  },
  accepts: () => false,
  label: 'nothing',
  quotesValue: false,
};

/** `type`, `const` and `enum` as one test with a label for messages. */
export function shallowTest(s: SchemaRecord, problems: string[]): { test?: (v: unknown) => boolean; label?: string; quotesValue: boolean } {
  const tests: Array<(v: unknown) => boolean> = [];
  let label: string | undefined;
  let quotesValue = false;
  const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type : undefined;
  if (types) {
    const known = types.filter((t): t is string => typeof t === 'string' && Object.hasOwn(TYPE_TESTS, t));
    const unknown = types.filter((t) => !known.includes(t as string));
    if (unknown.length > 0) problems.push(`unknown type ${unknown.map(preview).join(', ')} is ignored`);
    if (known.length > 0) {
      const fns = known.map((t) => TYPE_TESTS[t]!);
      tests.push(fns.length === 1 ? fns[0]! : (v) => fns.some((f) => f(v)));
      label = known.join(' or ');
    }
  }
  if (Object.hasOwn(s, 'const')) {
    const expected = s.const;
    tests.push((v) => jsonEqual(v, expected));
    label = preview(expected);
    quotesValue = true;
  } else if (Array.isArray(s.enum)) {
    const values = s.enum;
    tests.push((v) => values.some((e) => jsonEqual(v, e)));
    label = values.length === 1 ? preview(values[0]) : `one of ${listed(values.map(preview), ', ')}`;
    quotesValue = true;
  }
  if (tests.length === 0) return { quotesValue };
  const test = tests.length === 1 ? tests[0]! : (v: unknown) => tests.every((t) => t(v));
  return { test, label, quotesValue };
}

/** `minimum`, `maximum`, their exclusive forms and `multipleOf`. */
export function numberChecks(s: SchemaRecord, checks: Check[]): void {
  const bound = (key: string, ok: (v: number, limit: number) => boolean, words: string) => {
    const limit = s[key];
    if (typeof limit !== 'number') return;
    checks.push((v, state) => {
      if (typeof v !== 'number' || ok(v, limit)) return true;
      report(state, `expected ${words} ${limit}, got ${v}`);
      return false;
    });
  };
  // Draft 4 spelled exclusive bounds as booleans next to minimum/maximum.
  bound('minimum', s.exclusiveMinimum === true ? (v, l) => v > l : (v, l) => v >= l, s.exclusiveMinimum === true ? 'a number >' : 'a number >=');
  bound('maximum', s.exclusiveMaximum === true ? (v, l) => v < l : (v, l) => v <= l, s.exclusiveMaximum === true ? 'a number <' : 'a number <=');
  bound('exclusiveMinimum', (v, l) => v > l, 'a number >');
  bound('exclusiveMaximum', (v, l) => v < l, 'a number <');
  const step = s.multipleOf;
  if (typeof step === 'number' && step > 0) {
    checks.push((v, state) => {
      if (typeof v !== 'number') return true;
      const q = v / step;
      if (Math.abs(q - Math.round(q)) < 1e-9) return true;
      report(state, `expected a multiple of ${step}, got ${v}`);
      return false;
    });
  }
}

/** `minLength`, `maxLength` and `pattern`. */
export function stringChecks(s: SchemaRecord, checks: Check[], problems: string[]): void {
  const { minLength: min, maxLength: max, pattern } = s;
  if (typeof min === 'number' || typeof max === 'number') {
    checks.push((v, state) => {
      if (typeof v !== 'string') return true;
      const n = codePoints(v);
      if (typeof min === 'number' && n < min) report(state, `expected at least ${min} characters, got ${n}`);
      else if (typeof max === 'number' && n > max) report(state, `expected at most ${max} characters, got ${n}`);
      else return true;
      return false;
    });
  }
  if (typeof pattern === 'string') {
    const re = compilePattern(pattern);
    if (!re) {
      problems.push(`pattern ${JSON.stringify(pattern)} is not a valid regular expression; it is ignored`);
      return;
    }
    checks.push((v, state) => {
      if (typeof v !== 'string' || re.test(v)) return true;
      report(state, `expected a string matching /${pattern}/, got ${preview(v)}`);
      return false;
    });
  }
}

/** `anyOf` / `oneOf`: on failure, report the branch the value most plausibly meant. */
export function checkAlternatives(alternatives: Node[], exactlyOne: boolean, value: unknown, state: State): boolean {
  const failures: string[][] = [];
  let passed = 0;
  for (const alt of alternatives) {
    const trial: State = { root: state.root, path: state.path, errors: [], truncated: false, depth: state.depth };
    if (alt.check(value, trial)) {
      passed++;
      if (!exactlyOne) return true;
    } else {
      failures.push(alt.accepts(value) ? trial.errors : []);
    }
  }
  if (passed === 1 || (passed > 1 && !exactlyOne)) return true;
  if (passed > 1) {
    report(state, `matches ${passed} of the oneOf alternatives; expected exactly one`);
    return false;
  }
  const plausible = failures.filter((f) => f.length > 0);
  if (plausible.length === 0) {
    const labels = [...new Set(alternatives.map((a) => a.label ?? 'a matching value'))];
    const got = alternatives.some((a) => a.quotesValue) ? preview(value) : kindOf(value);
    report(state, `expected ${listed(labels, ' or ')}, got ${got}`);
    return false;
  }
  const best = plausible.reduce((a, b) => (b.length < a.length ? b : a));
  for (const error of best) {
    if (state.errors.length < MAX_ERRORS) state.errors.push(error);
    else state.truncated = true;
  }
  return false;
}

/** Unicode mode first (what JSON Schema means); some real-world patterns only parse without it. */
export function compilePattern(source: string): RegExp | undefined {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(source, flags);
    } catch {
      // Try the next flag set; the caller reports a pattern neither accepts.
    }
  }
  return undefined;
}
