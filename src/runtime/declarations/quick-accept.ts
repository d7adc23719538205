/**
 * A check that answers "certainly valid" for the arguments of a simple input schema without
 * ajv, so that a host's first calls (typically `code_execution`'s own, on a cold start) neither
 * load ajv (~100 modules) nor compile a validator: together 40–60 ms of the host's thread on an
 * idle 2-core machine and 150–700 ms at load 7, spent while the first script waits (issue 46).
 *
 * It only ever says yes or "ask ajv": `false` never means invalid. validate.ts asks it first
 * and compiles the schema with ajv only on a `false`, so every error message, every keyword this
 * file does not know and every odd value (a class instance, an own property set to
 * `undefined`) still goes through ajv exactly as before. What it must never do is accept a value
 * ajv (configured as in dialects.ts: strictNumbers, ownProperties, code-point string lengths)
 * would reject; `test/runtime/declarations/quick-accept.test.ts` compares it with ajv on
 * thousands of random schemas and values.
 *
 * The schemas it takes: objects whose every keyword is one of {@link KEYWORDS}, with a value of
 * the shape each dialect requires (plain-schema.ts decides that, so only schemas that skip the
 * meta-schema check qualify), no `format`, `pattern`, `multipleOf`, `uniqueItems`, `oneOf`,
 * `not`, `nullable`, and `enum`/`const` of primitives only. Recursion follows the schema, whose
 * depth plain-schema.ts bounds (32), and never the value's own depth.
 */
import { isPlainSchema } from './plain-schema.ts';

/** Answers true only for a value the schema certainly accepts. */
export type QuickAccept = (value: unknown) => boolean;

/** Keywords that only annotate: they never change a verdict. */
const ANNOTATIONS = new Set(['$schema', '$comment', 'title', 'description', 'default', 'examples', 'readOnly', 'writeOnly', 'deprecated']);
/** Keywords this file checks; anything else leaves the schema to ajv. */
const KEYWORDS = new Set([
  ...ANNOTATIONS, 'type', 'enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength',
  'minItems', 'maxItems', 'minProperties', 'maxProperties', 'required', 'properties', 'additionalProperties', 'items', 'anyOf', 'allOf',
]);

type Schema = Readonly<Record<string, unknown>>;

const isPrimitive = (v: unknown): boolean => v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number';

/** Whether every subschema uses only {@link KEYWORDS} (after plain-schema.ts vouched for their shapes). */
function supported(schema: unknown, root = false): boolean {
  if (typeof schema === 'boolean') return true;
  const s = schema as Schema;
  const sub = (value: unknown) => supported(value);
  for (const key of Object.keys(s)) {
    if (!KEYWORDS.has(key)) return false;
    const value = s[key];
    // A dialect named below the root is ajv's business (it may not compile).
    if (key === '$schema' && !root) return false;
    if (key === 'const' && !isPrimitive(value)) return false;
    if (key === 'properties' && !Object.values(value as Schema).every(sub)) return false;
    if ((key === 'additionalProperties' || key === 'items') && !supported(value)) return false;
    if ((key === 'anyOf' || key === 'allOf') && !(value as unknown[]).every(sub)) return false;
  }
  return true;
}

/** A plain object as JSON makes it: nothing inherited can stand in for a property. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** ajv's types under strictNumbers: a number is finite; an object is neither null nor an array. */
function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return false;
  }
}

/** Code points, as ajv counts a string's length (a surrogate pair is one). */
function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

function accepts(schema: unknown, value: unknown): boolean {
  if (schema === true) return true;
  if (schema === false) return false;
  const s = schema as Schema;
  const type = s.type;
  if (typeof type === 'string' && !hasType(value, type)) return false;
  if (Array.isArray(type) && !type.some((t: string) => hasType(value, t))) return false;
  if (s.enum !== undefined && !(s.enum as unknown[]).some((v) => v === value)) return false;
  if ('const' in s && s.const !== value) return false;
  if (typeof value === 'number') {
    // Not JSON (ajv's strictNumbers has its own rules for it): ajv judges it.
    if (!Number.isFinite(value)) return false;
    if (s.minimum !== undefined && !(value >= (s.minimum as number))) return false;
    if (s.maximum !== undefined && !(value <= (s.maximum as number))) return false;
    if (s.exclusiveMinimum !== undefined && !(value > (s.exclusiveMinimum as number))) return false;
    if (s.exclusiveMaximum !== undefined && !(value < (s.exclusiveMaximum as number))) return false;
  } else if (typeof value === 'string') {
    if (s.minLength !== undefined || s.maxLength !== undefined) {
      const length = codePoints(value);
      if (s.minLength !== undefined && length < (s.minLength as number)) return false;
      if (s.maxLength !== undefined && length > (s.maxLength as number)) return false;
    }
  } else if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < (s.minItems as number)) return false;
    if (s.maxItems !== undefined && value.length > (s.maxItems as number)) return false;
    if (s.items !== undefined) {
      for (let i = 0; i < value.length; i++) if (!accepts(s.items, value[i])) return false;
    }
  } else if (typeof value === 'object' && value !== null) {
    if (!objectAccepted(s, value)) return false;
  }
  if (s.allOf !== undefined && !(s.allOf as unknown[]).every((sub) => accepts(sub, value))) return false;
  if (s.anyOf !== undefined && !(s.anyOf as unknown[]).some((sub) => accepts(sub, value))) return false;
  return true;
}

function objectAccepted(s: Schema, value: object): boolean {
  const objectKeywords = s.properties !== undefined || s.required !== undefined || s.additionalProperties !== undefined || s.minProperties !== undefined || s.maxProperties !== undefined;
  if (!objectKeywords) return true;
  // Anything but a plain object (a class instance, inherited or undefined members) is ajv's to judge.
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  // A member that is not enumerable is skipped by Object.keys but checked by ajv's `properties`.
  if (Object.getOwnPropertyNames(value).length !== keys.length) return false;
  if (s.minProperties !== undefined && keys.length < (s.minProperties as number)) return false;
  if (s.maxProperties !== undefined && keys.length > (s.maxProperties as number)) return false;
  const properties = (s.properties ?? {}) as Schema;
  for (const name of (s.required ?? []) as string[]) {
    if (!Object.hasOwn(value, name)) return false;
  }
  for (const key of keys) {
    const member = value[key];
    if (member === undefined) return false;
    if (Object.hasOwn(properties, key)) {
      if (!accepts(properties[key], member)) return false;
    } else if (s.additionalProperties !== undefined && !accepts(s.additionalProperties, member)) return false;
  }
  return true;
}

/**
 * The quick check of `schema`, or undefined when it uses anything this file does not check
 * (then only ajv validates it). The schema is read once here and must not change afterwards,
 * as validate.ts already requires of a compiled schema.
 */
export function quickAcceptor(schema: unknown): QuickAccept | undefined {
  if (!isPlainSchema(schema) || !supported(schema, true)) return undefined;
  return (value) => accepts(schema, value);
}
