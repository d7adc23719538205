/**
 * Merging two object-form schemas into one that accepts what both accept, as far as the
 * declaration renderers care. Used to render `allOf` as a single object and to push the
 * shared keywords of a schema into each `anyOf`/`oneOf` branch. When two keywords cannot be
 * combined meaningfully the merge gives up (`null`) and the caller falls back to an
 * intersection type.
 */

import { jsonEqual } from './json.ts';
import { isSchemaObject, resolveLocalRef } from './pointer.ts';

type SchemaRecord = Record<string, unknown>;

/** Keywords that describe rather than constrain: the first schema's value wins. */
const ANNOTATIONS = new Set([
  'description', 'title', 'default', 'examples', '$comment', 'deprecated', 'format', 'readOnly',
  'writeOnly', '$schema', '$id', '$defs', 'definitions', 'nullable',
]);
const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties']);
const UPPER_BOUNDS = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties']);

function typeSet(type: unknown): string[] | undefined {
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return undefined;
}

/** Types accepted by both; `integer` is the overlap of `integer` and `number`. */
function intersectTypes(a: string[], b: string[]): string[] {
  const out: string[] = [];
  for (const t of a) {
    let hit: string | undefined;
    if (b.includes(t)) hit = t;
    else if (t === 'number' && b.includes('integer')) hit = 'integer';
    else if (t === 'integer' && b.includes('number')) hit = 'integer';
    if (hit !== undefined && !out.includes(hit)) out.push(hit);
  }
  return out;
}

function mergeMaps(a: unknown, b: unknown): SchemaRecord | null {
  if (!isSchemaObject(a) || !isSchemaObject(b)) return null;
  const out: SchemaRecord = { ...a };
  for (const [key, value] of Object.entries(b)) {
    out[key] = Object.hasOwn(a, key) && !jsonEqual(a[key], value) ? { allOf: [a[key], value] } : value;
  }
  return out;
}

/**
 * Merges `b` into `a`. Returns `false` (the schema nothing matches) when the two contradict
 * on type or const, and `null` when they cannot be expressed as one schema.
 */
export function mergeSchemas(a: SchemaRecord, b: SchemaRecord): SchemaRecord | false | null {
  const out: SchemaRecord = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!Object.hasOwn(a, key) || jsonEqual(a[key], value)) {
      out[key] = value;
      continue;
    }
    const mine = a[key];
    if (ANNOTATIONS.has(key)) continue;
    if (LOWER_BOUNDS.has(key) || UPPER_BOUNDS.has(key)) {
      if (typeof mine !== 'number' || typeof value !== 'number') return null;
      out[key] = LOWER_BOUNDS.has(key) ? Math.max(mine, value) : Math.min(mine, value);
      continue;
    }
    switch (key) {
      case 'type': {
        const ta = typeSet(mine);
        const tb = typeSet(value);
        if (!ta || !tb) return null;
        const both = intersectTypes(ta, tb);
        if (both.length === 0) return false;
        out.type = both.length === 1 ? both[0] : both;
        break;
      }
      case 'properties':
      case 'patternProperties': {
        const merged = mergeMaps(mine, value);
        if (!merged) return null;
        out[key] = merged;
        break;
      }
      case 'required':
        if (!Array.isArray(mine) || !Array.isArray(value)) return null;
        out.required = [...new Set([...mine, ...value])];
        break;
      case 'enum': {
        if (!Array.isArray(mine) || !Array.isArray(value)) return null;
        const both = mine.filter((x) => value.some((y) => jsonEqual(x, y)));
        if (both.length === 0) return false;
        out.enum = both;
        break;
      }
      case 'const':
        return false;
      case 'allOf':
        if (!Array.isArray(mine) || !Array.isArray(value)) return null;
        out.allOf = [...mine, ...value];
        break;
      case 'additionalProperties':
        out[key] = mine === false || value === false ? false : { allOf: [mine, value] };
        break;
      case 'items':
      case 'additionalItems':
        if (Array.isArray(mine) || Array.isArray(value)) return null;
        out[key] = { allOf: [mine, value] };
        break;
      default:
        // anyOf, oneOf, prefixItems and anything unknown: two different values do not combine.
        return null;
    }
  }
  return out;
}

/**
 * `schema` with top-level `$ref`s replaced by what they point at (merged with any sibling
 * keywords), so it can take part in a merge. `true` becomes `{}`; `false` stays `false`.
 * Returns `null` for an unresolvable or circular chain of references.
 */
export function inlineRefs(schema: unknown, root: unknown, seen: Set<string> = new Set()): SchemaRecord | false | null {
  if (schema === true || schema === undefined) return {};
  if (schema === false) return false;
  if (!isSchemaObject(schema)) return null;
  if (typeof schema.$ref !== 'string') return { ...schema };
  const target = resolveLocalRef(root, schema.$ref);
  if (!target || seen.has(target.pointer)) return null;
  seen.add(target.pointer);
  const resolved = inlineRefs(target.schema, root, seen);
  if (resolved === null || resolved === false) return resolved;
  const { $ref: _ref, ...siblings } = schema;
  return mergeSchemas(siblings, resolved);
}
