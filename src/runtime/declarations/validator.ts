/**
 * Compiles a JSON Schema into a tree of check functions, once, so validating a call costs a
 * walk over the value and no schema interpretation. Covers the subset tool schemas use;
 * keywords outside it are ignored, and keywords it cannot honour are listed as problems.
 */

import { kindOf, preview } from './json.ts';
import { isSchemaObject, resolveLocalRef } from './pointer.ts';
import {
  ALWAYS, checkAlternatives, compilePattern, MAX_REF_DEPTH, NOTHING, numberChecks, report, shallowTest, stringChecks,
  type Check, type Node, type SchemaRecord,
} from './validator-checks.ts';

export { MAX_ERRORS, type Node, type State } from './validator-checks.ts';

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
    const ref = typeof schema.$ref === 'string' ? this.ref(schema.$ref) : undefined;
    if (ref) checks.push((v, s) => ref.check(v, s));
    const { test, label, quotesValue } = shallowTest(schema, this.problems);
    numberChecks(schema, checks);
    stringChecks(schema, checks, this.problems);
    this.arrays(schema, checks);
    this.objects(schema, checks);
    this.combinators(schema, checks);
    const nullable = schema.nullable === true;
    // A bare `{ $ref }` describes itself by its target, for anyOf diagnostics.
    const shape = test || !ref ? { accepts: test, label, quotesValue } : undefined;
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
      accepts(value) {
        if (nullable && value === null) return true;
        if (!shape) return ref!.accepts(value);
        return !shape.accepts || shape.accepts(value);
      },
      get label() {
        return shape ? shape.label : ref!.label;
      },
      get quotesValue() {
        return shape ? shape.quotesValue : ref!.quotesValue;
      },
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
