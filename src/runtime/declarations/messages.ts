/**
 * Turns ajv's errors into the messages a script or a model reads: the path of the offending
 * value in the caller's terms (`args.items[2].name`), what was expected and what came
 * (`expected integer, got string`). ajv's own texts ("must be integer") say neither.
 *
 * `anyOf`/`oneOf` get one more step. ajv reports every branch's failures and then the
 * combinator's; listing all of them buries the point. When the value's type (or
 * `const`/`enum`) fits exactly the branches whose errors remain, the errors of the closest
 * such branch are kept (the value was meant for it); otherwise one line names what the
 * branches accept (`expected string or integer, got boolean`).
 */

import type { AnySchema, ErrorObject } from 'ajv';
import { isPyIdentifier } from '../names.ts';
import { jsonEqual, kindOf, preview } from './json.ts';
import { isSchemaObject, resolveLocalRef } from './pointer.ts';

/** At most this many errors are listed; the rest are summarized in one line. */
export const MAX_ERRORS = 20;
const MAX_LISTED = 10;

/** One message in the making: where, what, and which schema object raised it. */
interface Entry {
  /** JSON pointer of the offending value, as ajv reports it. */
  at: string;
  message: string;
  /** The schema object whose keyword failed, to tell which combinator branch it came from. */
  owner: unknown;
}

/**
 * Messages for ajv's `errors` of one failed validation of `value`, each prefixed by the
 * value's path below `root`. `schema` is the root schema ajv compiled (for local `$ref`s).
 */
export function describeErrors(errors: readonly ErrorObject[], value: unknown, schema: AnySchema, root: string): string[] {
  const entries: Entry[] = [];
  for (const error of errors) {
    // An `if` failure always follows the `then`/`else` errors that say why; names inside
    // `propertyNames` are reported by the `propertyNames` error itself.
    if (error.keyword === 'if' || error.propertyName !== undefined) continue;
    if ((error.keyword === 'anyOf' || error.keyword === 'oneOf') && !Array.isArray(error.params.passingSchemas)) {
      entries.push(...alternatives(error, entries, schema));
      continue;
    }
    if (error.keyword === 'contains') {
      // The items' own failures against `contains` are expected (only some must match): noise.
      takeTail(entries, error.instancePath, [reachable(error.schema, schema)]);
    }
    entries.push(entry(error));
  }
  const lines = [...new Set(entries.map((e) => `${formatPath(value, e.at, root)}: ${e.message}`))];
  if (lines.length <= MAX_ERRORS) return lines;
  return [...lines.slice(0, MAX_ERRORS), `(further errors after the first ${MAX_ERRORS} are not shown)`];
}

function entry(error: ErrorObject): Entry {
  const p = error.params as Record<string, unknown>;
  const data: unknown = error.data;
  const at = error.instancePath;
  const owner = error.parentSchema;
  const child = (key: unknown) => `${at}/${escapePointer(String(key))}`;
  const count = (n: number, noun: string, nouns = `${noun}s`) => `${n} ${n === 1 ? noun : nouns}`;
  const length = (v: unknown) => (Array.isArray(v) ? v.length : typeof v === 'string' ? [...v].length : isSchemaObject(v) ? Object.keys(v).length : 0);
  switch (error.keyword) {
    case 'type': {
      // ajv honours `nullable: true` but leaves null out of the type it reports.
      const types = Array.isArray(p.type) ? [...p.type] : [p.type];
      if (isSchemaObject(owner) && owner.nullable === true && !types.includes('null')) types.push('null');
      return { at, owner, message: `expected ${typeLabel(types)}, got ${kindOf(data)}` };
    }
    case 'required':
      return { at: child(p.missingProperty), owner, message: 'required property is missing' };
    case 'dependentRequired':
    case 'dependencies':
      return { at: child(p.missingProperty), owner, message: `required property is missing (needed when ${JSON.stringify(p.property)} is present)` };
    case 'additionalProperties':
      return { at: child(p.additionalProperty), owner, message: `unexpected property${allowedKeys(owner)}` };
    case 'unevaluatedProperties':
      return { at: child(p.unevaluatedProperty), owner, message: 'unexpected property' };
    case 'propertyNames':
      return { at: child(p.propertyName), owner, message: 'property name not allowed by propertyNames' };
    case 'enum': {
      const values = Array.isArray(p.allowedValues) ? p.allowedValues : [];
      return { at, owner, message: `expected ${enumLabel(values)}, got ${preview(data)}` };
    }
    case 'const':
      return { at, owner, message: `expected ${preview(p.allowedValue)}, got ${preview(data)}` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { at, owner, message: `expected a number ${String(p.comparison)} ${String(p.limit)}, got ${preview(data)}` };
    case 'multipleOf':
      return { at, owner, message: `expected a multiple of ${String(p.multipleOf)}, got ${preview(data)}` };
    case 'minLength':
      return { at, owner, message: `expected at least ${count(Number(p.limit), 'character')}, got ${length(data)}` };
    case 'maxLength':
      return { at, owner, message: `expected at most ${count(Number(p.limit), 'character')}, got ${length(data)}` };
    case 'minItems':
      return { at, owner, message: `expected at least ${count(Number(p.limit), 'item')}, got ${length(data)}` };
    case 'maxItems':
    case 'additionalItems':
    case 'items': // only with a limit: `items: false` after prefixItems (2020-12)
      return { at, owner, message: `expected at most ${count(Number(p.limit), 'item')}, got ${length(data)}` };
    case 'minProperties':
      return { at, owner, message: `expected at least ${count(Number(p.limit), 'property', 'properties')}, got ${length(data)}` };
    case 'maxProperties':
      return { at, owner, message: `expected at most ${count(Number(p.limit), 'property', 'properties')}, got ${length(data)}` };
    case 'pattern':
      return { at, owner, message: `expected a string matching /${String(p.pattern)}/, got ${preview(data)}` };
    case 'format':
      return { at, owner, message: `expected format ${JSON.stringify(p.format)}, got ${preview(data)}` };
    case 'contains': {
      const least = typeof p.minContains === 'number' ? p.minContains : 1;
      const most = typeof p.maxContains === 'number' ? `, and at most ${p.maxContains},` : '';
      return { at, owner, message: `expected at least ${count(least, 'item')}${most} matching "contains", got ${preview(data)}` };
    }
    case 'uniqueItems':
      return { at, owner, message: `expected unique items, but items ${String(p.j)} and ${String(p.i)} are equal` };
    case 'false schema':
      return { at, owner, message: 'no value is allowed here' };
    case 'not':
      return { at, owner, message: `expected a value the "not" schema rejects, got ${preview(data)}` };
    case 'oneOf':
      return { at, owner, message: `matches ${(p.passingSchemas as unknown[]).length} of the oneOf alternatives; expected exactly one` };
    default:
      // Keywords rare in tool schemas (contains, unevaluatedItems, custom ones): ajv's text.
      return { at, owner, message: error.message ?? `fails ${error.keyword}` };
  }
}

/** Replaces the branch errors at the tail of `entries` by what the failed combinator means. */
function alternatives(error: ErrorObject, entries: Entry[], root: AnySchema): Entry[] {
  const branches: unknown[] = Array.isArray(error.schema) ? error.schema : [];
  const reach = branches.map((b) => reachable(b, root));
  const taken = takeTail(entries, error.instancePath, reach);
  const value: unknown = error.data;
  const meant = branches
    .map((b, i) => (shallow(b, root).accepts(value) ? taken.filter((e) => e.owner === undefined || reach[i]!.has(e.owner)) : []))
    .filter((list) => list.length > 0);
  if (meant.length > 0) return meant.reduce((a, b) => (b.length < a.length ? b : a));
  const shapes = branches.map((b) => shallow(b, root));
  const labels = [...new Set(shapes.map((s) => s.label ?? 'a matching value'))];
  const got = shapes.some((s) => s.quotesValue) ? preview(value) : kindOf(value);
  return [{ at: error.instancePath, owner: error.parentSchema, message: `expected ${listed(labels, ' or ')}, got ${got}` }];
}

/**
 * Removes and returns the errors a subschema left at the tail of `entries`: ajv appends a
 * subschema's errors just before the error of the keyword that applied it, so they are the
 * trailing entries at or below `at` raised by a schema object reachable from it.
 */
function takeTail(entries: Entry[], at: string, reach: ReadonlyArray<Set<unknown>>): Entry[] {
  const taken: Entry[] = [];
  while (entries.length > 0) {
    const last = entries[entries.length - 1]!;
    if (!isWithin(last.at, at) || !reach.some((r) => last.owner === undefined || r.has(last.owner))) break;
    taken.unshift(entries.pop()!);
  }
  return taken;
}

interface Shape {
  /** Whether `type`, `const` and `enum` alone accept the value. */
  accepts(value: unknown): boolean;
  label: string | undefined;
  quotesValue: boolean;
}

const ANYTHING: Shape = { accepts: () => true, label: undefined, quotesValue: false };
const NOTHING: Shape = { accepts: () => false, label: 'nothing', quotesValue: false };

const TYPE_TESTS: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  array: (v) => Array.isArray(v),
  object: (v) => isSchemaObject(v),
};

/** What a branch asks for on its surface (`type`, `const`, `enum`), following a bare `$ref`. */
function shallow(schema: unknown, root: AnySchema, depth = 0): Shape {
  if (schema === false) return NOTHING;
  if (!isSchemaObject(schema)) return ANYTHING;
  const tests: Array<(v: unknown) => boolean> = [];
  let label: string | undefined;
  let quotesValue = false;
  const types = (typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : []).filter(
    (t): t is string => typeof t === 'string' && Object.hasOwn(TYPE_TESTS, t),
  );
  if (types.length > 0) {
    if (schema.nullable === true && !types.includes('null')) types.push('null');
    tests.push((v) => types.some((t) => TYPE_TESTS[t]!(v)));
    label = typeLabel(types);
  }
  if (Object.hasOwn(schema, 'const')) {
    const expected = schema.const;
    tests.push((v) => jsonEqual(v, expected));
    label = preview(expected);
    quotesValue = true;
  } else if (Array.isArray(schema.enum)) {
    const values = schema.enum;
    tests.push((v) => values.some((e) => jsonEqual(v, e)));
    label = enumLabel(values);
    quotesValue = true;
  }
  if (tests.length === 0) {
    if (depth >= 32) return ANYTHING;
    const target = typeof schema.$ref === 'string' ? resolveLocalRef(root, schema.$ref) : undefined;
    if (target) return shallow(target.schema, root, depth + 1);
    // A branch that is itself a choice accepts what one of its own branches accepts.
    const choice = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (choice && choice.length > 0) {
      const shapes = choice.map((c) => shallow(c, root, depth + 1));
      if (shapes.some((c) => c.label === undefined)) return ANYTHING;
      return { accepts: (v) => shapes.some((c) => c.accepts(v)), label: [...new Set(shapes.map((c) => c.label))].join(' or '), quotesValue: shapes.some((c) => c.quotesValue) };
    }
    return ANYTHING;
  }
  return { accepts: (v) => tests.every((t) => t(v)), label, quotesValue };
}

/** Every object inside `schema`, following local `$ref`s: the schemas a branch's errors can come from. */
const reachCache = new WeakMap<object, Set<unknown>>();

function reachable(schema: unknown, root: AnySchema): Set<unknown> {
  if (typeof schema !== 'object' || schema === null) return new Set();
  const known = reachCache.get(schema);
  if (known) return known;
  const seen = new Set<unknown>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref' && typeof child === 'string') stack.push(resolveLocalRef(root, child)?.schema);
      else stack.push(child);
    }
  }
  reachCache.set(schema, seen);
  return seen;
}

function typeLabel(type: unknown): string {
  return Array.isArray(type) ? type.join(' or ') : String(type);
}

function enumLabel(values: unknown[]): string {
  return values.length === 1 ? preview(values[0]) : `one of ${listed(values.map(preview), ', ')}`;
}

function allowedKeys(schema: unknown): string {
  if (!isSchemaObject(schema)) return '';
  const keys = isSchemaObject(schema.properties) ? Object.keys(schema.properties) : [];
  const patterns = isSchemaObject(schema.patternProperties) ? Object.keys(schema.patternProperties).map((p) => `/${p}/`) : [];
  if (keys.length === 0 && patterns.length === 0) return ' (no properties are allowed)';
  const pattern = patterns.length > 0 ? `${keys.length > 0 ? ', or ' : ''}keys matching ${patterns.join(', ')}` : '';
  return ` (allowed: ${keys.join(', ')}${pattern})`;
}

function listed(items: string[], joiner: string): string {
  return items.length > MAX_LISTED ? `${items.slice(0, MAX_LISTED).join(joiner)}${joiner}…` : items.join(joiner);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isWithin(pointer: string, base: string): boolean {
  return pointer === base || pointer.startsWith(`${base}/`);
}

/** `/items/2/na~1me` in `value` → `args.items[2]["na/me"]`: indexes only where the value is an array. */
function formatPath(value: unknown, pointer: string, root: string): string {
  let out = root;
  let node = value;
  if (pointer === '') return out;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(key)) {
      out += `[${key}]`;
      node = node[Number(key)];
    } else {
      out += isPyIdentifier(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
      node = isSchemaObject(node) ? node[key] : undefined;
    }
  }
  return out;
}
