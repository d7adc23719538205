/**
 * Which input schemas certainly pass their dialect's meta-schema, so that compiling them can
 * skip ajv's meta-schema check (dialects.ts). That check is worth keeping for the schemas it
 * catches (`type: 'date'`), but its first use compiles the meta-schema itself: ~40 ms of the
 * host's thread on an idle machine, ~200 ms on a loaded one, spent on a host's first call of
 * every dialect — typically `code_execution`'s own first call, while its sandbox starts.
 *
 * The test is a whitelist, kept deliberately small: every keyword of every subschema must be one
 * listed here with a value of the type all three meta-schemas (draft-07, 2019-09, 2020-12)
 * require of it. Anything else — an unlisted keyword (even one the meta-schemas ignore), a
 * `$ref`, a `pattern`, a value of the wrong type, a shared or cyclic subschema — answers false,
 * and the schema is checked by ajv as before. A true answer never changes what is enforced: the
 * schema is compiled by the same ajv with the same options.
 */

const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
/** Deeper schemas take the full check (bounds the recursion). */
const MAX_DEPTH = 32;

type Check = (value: unknown, depth: number, seen: Set<object>) => boolean;

const isString: Check = (v) => typeof v === 'string';
const isBoolean: Check = (v) => typeof v === 'boolean';
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isCount: Check = (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isAnything: Check = () => true;
const isArray: Check = (v) => Array.isArray(v);

function isTypeName(v: unknown): boolean {
  return typeof v === 'string' && TYPES.has(v);
}

const isType: Check = (v) => isTypeName(v) || (Array.isArray(v) && v.length > 0 && v.every(isTypeName) && new Set(v).size === v.length);
/** Distinct JSON primitives (some meta-schemas want `enum` unique and non-empty). */
const isPrimitiveSet: Check = (v) =>
  Array.isArray(v) && v.length > 0 && v.every((x) => x === null || typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x))) && new Set(v).size === v.length;
const isStringSet: Check = (v) => Array.isArray(v) && v.every((s) => typeof s === 'string') && new Set(v).size === v.length;
const isSchema: Check = (v, depth, seen) => typeof v === 'boolean' || isPlainSchemaAt(v, depth + 1, seen);
const isSchemaMap: Check = (v, depth, seen) => isObject(v) && Object.values(v).every((s) => isSchema(s, depth, seen));
const isSchemaList: Check = (v, depth, seen) => Array.isArray(v) && v.length > 0 && v.every((s) => isSchema(s, depth, seen));
/** A `$schema` naming one of the dialects (a URI, as the meta-schemas' `format: uri` wants). */
const isDialectUri: Check = (v) => typeof v === 'string' && /^https?:\/\/json-schema\.org\/(draft-0[67]|draft\/2019-09|draft\/2020-12)\/schema#?$/.test(v);

const KEYWORDS: Record<string, Check> = {
  $schema: isDialectUri,
  $comment: isString,
  title: isString,
  description: isString,
  default: isAnything,
  examples: isArray,
  readOnly: isBoolean,
  writeOnly: isBoolean,
  deprecated: isBoolean,
  type: isType,
  enum: isPrimitiveSet,
  const: isAnything,
  format: isString,
  nullable: isBoolean,
  minimum: isNumber,
  maximum: isNumber,
  exclusiveMinimum: isNumber,
  exclusiveMaximum: isNumber,
  multipleOf: (v) => isNumber(v, 0, new Set()) && (v as number) > 0,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  uniqueItems: isBoolean,
  minProperties: isCount,
  maxProperties: isCount,
  required: isStringSet,
  properties: isSchemaMap,
  additionalProperties: isSchema,
  // Only the single-schema form: 2020-12 has no array of `items`.
  items: isSchema,
  anyOf: isSchemaList,
  oneOf: isSchemaList,
  allOf: isSchemaList,
  not: isSchema,
};

function isObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function isPlainSchemaAt(schema: unknown, depth: number, seen: Set<object>): boolean {
  if (!isObject(schema) || depth > MAX_DEPTH || seen.has(schema)) return false;
  seen.add(schema);
  for (const key of Object.keys(schema)) {
    const check = Object.hasOwn(KEYWORDS, key) ? KEYWORDS[key] : undefined;
    if (check === undefined || !check(schema[key], depth, seen)) return false;
  }
  return true;
}

/** True only when `schema` (a root schema object) certainly passes its dialect's meta-schema. */
export function isPlainSchema(schema: unknown): boolean {
  return isPlainSchemaAt(schema, 0, new Set());
}
