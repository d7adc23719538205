/**
 * Compiles a JSON Schema into a tree of check functions, once, so validating a call costs a
 * walk over the value and no schema interpretation. Covers the subset tool schemas use;
 * keywords outside it are ignored, and keywords it cannot honour are listed as problems.
 */

import { isPyIdentifier } from '../names.ts';
import { jsonEqual, kindOf, preview } from './json.ts';
import { isSchemaObject, resolveLocalRef } from './pointer.ts';

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

type Check = (value: unknown, state: State) => boolean;
type SchemaRecord = { readonly [keyword: string]: unknown };

const ALWAYS: Node = { check: () => true, accepts: () => true, label: undefined, quotesValue: false };
const NOTHING: Node = {
  check: (_v, state) => {
    report(state, 'no value is allowed here');
    return false;
  },
  accepts: () => false,
  label: 'nothing',
  quotesValue: false,
};

export class Compiler {
  readonly problems: string[] = [];
  private readonly refs = new Map<string, Node>();

  constructor(private readonly root: unknown) {}

  compile(schema: unknown): Node {
    if (schema === true || schema === undefined) return ALWAYS;
    if (schema === false) return NOTHING;
    if (!isSchemaObject(schema)) {
      this.problems.push(`a schema is ${kindOf(schema)}, not an object or boolean; it accepts anything`);
      return ALWAYS;
    }
    const checks: Check[] = [];
    if (typeof schema.$ref === 'string') {
      const ref = this.ref(schema.$ref);
      if (ref) checks.push((v, s) => ref.check(v, s));
    }
    const shallow = this.shallow(schema);
    this.numbers(schema, checks);
    this.strings(schema, checks);
    this.arrays(schema, checks);
    this.objects(schema, checks);
    this.combinators(schema, checks);
    const nullable = schema.nullable === true;
    const { test, label, quotesValue } = shallow;
    return {
      check(value, state) {
        if (nullable && value === null) return true;
        if (test && !test(value)) {
          report(state, `expected ${label}, got ${quotesValue ? preview(value) : kindOf(value)}`);
          return false;
        }
        let ok = true;
        for (const c of checks) if (!c(value, state)) ok = false;
        return ok;
      },
      accepts: (value) => (nullable && value === null) || !test || test(value),
      label,
      quotesValue,
    };
  }

  /** A node for a local reference, compiled once; circular references reuse the same node. */
  private ref(ref: string): Node | undefined {
    const target = resolveLocalRef(this.root, ref);
    if (!target) {
      this.problems.push(`$ref ${JSON.stringify(ref)} does not resolve to a local definition; it is ignored`);
      return undefined;
    }
    const known = this.refs.get(target.pointer);
    if (known) return known;
    let compiled: Node = ALWAYS;
    const node: Node = {
      check(value, state) {
        if (state.depth >= MAX_REF_DEPTH) {
          report(state, `$ref ${JSON.stringify(ref)} nests more than ${MAX_REF_DEPTH} deep`);
          return false;
        }
        state.depth++;
        const ok = compiled.check(value, state);
        state.depth--;
        return ok;
      },
      accepts: (value) => compiled.accepts(value),
      get label() {
        return compiled.label;
      },
      get quotesValue() {
        return compiled.quotesValue;
      },
    };
    this.refs.set(target.pointer, node);
    compiled = this.compile(target.schema);
    return node;
  }

  /** `type`, `const` and `enum` as one test with a label for messages. */
  private shallow(s: SchemaRecord): { test?: (v: unknown) => boolean; label?: string; quotesValue: boolean } {
    const tests: Array<(v: unknown) => boolean> = [];
    let label: string | undefined;
    let quotesValue = false;
    const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type : undefined;
    if (types) {
      const known = types.filter((t): t is string => typeof t === 'string' && Object.hasOwn(TYPE_TESTS, t));
      const unknown = types.filter((t) => !known.includes(t as string));
      if (unknown.length > 0) this.problems.push(`unknown type ${unknown.map(preview).join(', ')} is ignored`);
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

  private numbers(s: SchemaRecord, checks: Check[]): void {
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

  private strings(s: SchemaRecord, checks: Check[]): void {
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
        this.problems.push(`pattern ${JSON.stringify(pattern)} is not a valid regular expression; it is ignored`);
        return;
      }
      checks.push((v, state) => {
        if (typeof v !== 'string' || re.test(v)) return true;
        report(state, `expected a string matching /${pattern}/, got ${preview(v)}`);
        return false;
      });
    }
  }

  private arrays(s: SchemaRecord, checks: Check[]): void {
    const modern = Array.isArray(s.prefixItems);
    const prefix = (modern ? (s.prefixItems as unknown[]) : Array.isArray(s.items) ? s.items : []).map((p) => this.compile(p));
    const restSchema = modern || Array.isArray(s.items) ? (modern ? s.items : s.additionalItems) : s.items;
    const rest = restSchema === undefined ? undefined : this.compile(restSchema);
    const { minItems: min, maxItems: max } = s;
    if (prefix.length === 0 && !rest && typeof min !== 'number' && typeof max !== 'number') return;
    checks.push((v, state) => {
      if (!Array.isArray(v)) return true;
      let ok = true;
      if (typeof min === 'number' && v.length < min) {
        report(state, `expected at least ${min} item${min === 1 ? '' : 's'}, got ${v.length}`);
        ok = false;
      }
      if (typeof max === 'number' && v.length > max) {
        report(state, `expected at most ${max} item${max === 1 ? '' : 's'}, got ${v.length}`);
        ok = false;
      }
      if (rest === NOTHING && v.length > prefix.length) {
        report(state, `expected at most ${prefix.length} item${prefix.length === 1 ? '' : 's'}, got ${v.length}`);
        return false;
      }
      for (let i = 0; i < v.length; i++) {
        const node = i < prefix.length ? prefix[i]! : rest;
        if (!node) break;
        state.path.push(i);
        if (!node.check(v[i], state)) ok = false;
        state.path.pop();
      }
      return ok;
    });
  }

  private objects(s: SchemaRecord, checks: Check[]): void {
    const props = isSchemaObject(s.properties) ? Object.entries(s.properties).map(([k, p]) => [k, this.compile(p)] as const) : [];
    const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [];
    const patterns: Array<[RegExp, Node, string]> = [];
    if (isSchemaObject(s.patternProperties)) {
      for (const [source, p] of Object.entries(s.patternProperties)) {
        const re = compilePattern(source);
        if (re) patterns.push([re, this.compile(p), source]);
        else this.problems.push(`patternProperties key ${JSON.stringify(source)} is not a valid regular expression; it is ignored`);
      }
    }
    const extra = s.additionalProperties === undefined ? undefined : this.compile(s.additionalProperties);
    const known = new Set(props.map(([k]) => k));
    const allowed = [...known].join(', ') + (patterns.length > 0 ? `${known.size > 0 ? ', or ' : ''}keys matching ${patterns.map(([, , p]) => `/${p}/`).join(', ')}` : '');
    const scanKeys = patterns.length > 0 || (extra !== undefined && extra !== ALWAYS);
    if (props.length === 0 && required.length === 0 && !scanKeys) return;
    checks.push((v, state) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return true;
      const obj = v as Record<string, unknown>;
      let ok = true;
      for (const key of required) {
        if (Object.hasOwn(obj, key)) continue;
        state.path.push(key);
        report(state, 'required property is missing');
        state.path.pop();
        ok = false;
      }
      for (const [key, node] of props) {
        if (!Object.hasOwn(obj, key)) continue;
        state.path.push(key);
        if (!node.check(obj[key], state)) ok = false;
        state.path.pop();
      }
      if (!scanKeys) return ok;
      for (const key of Object.keys(obj)) {
        let matched = known.has(key);
        state.path.push(key);
        for (const [re, node] of patterns) {
          if (!re.test(key)) continue;
          matched = true;
          if (!node.check(obj[key], state)) ok = false;
        }
        if (!matched && extra === NOTHING) {
          report(state, `unexpected property${allowed === '' ? ' (no properties are allowed)' : ` (allowed: ${allowed})`}`);
          ok = false;
        } else if (!matched && extra && !extra.check(obj[key], state)) {
          ok = false;
        }
        state.path.pop();
      }
      return ok;
    });
  }

  private combinators(s: SchemaRecord, checks: Check[]): void {
    if (Array.isArray(s.allOf)) {
      const parts = s.allOf.map((p) => this.compile(p));
      checks.push((v, state) => parts.map((p) => p.check(v, state)).every(Boolean));
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = s[key];
      if (!Array.isArray(list) || list.length === 0) continue;
      const alternatives = list.map((p) => this.compile(p));
      checks.push((v, state) => checkAlternatives(alternatives, key === 'oneOf', v, state));
    }
  }
}

/** `anyOf` / `oneOf`: on failure, report the branch the value most plausibly meant. */
function checkAlternatives(alternatives: Node[], exactlyOne: boolean, value: unknown, state: State): boolean {
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
function compilePattern(source: string): RegExp | undefined {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(source, flags);
    } catch {
      // Try the next flag set; the caller reports a pattern neither accepts.
    }
  }
  return undefined;
}
