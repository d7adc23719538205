/**
 * The human-readable part of a schema: its description and the constraints worth telling a
 * model about. Both renderers print these as comments.
 */

import { inlineRefs, mergeSchemas } from './merge.ts';
import { isSchemaObject, resolveLocalRef } from './pointer.ts';

/** A description plus `[tag, value]` notes such as `['minimum', '1']`. */
export interface Doc {
  description?: string;
  tags: Array<[string, string]>;
}

export const EMPTY_DOC: Doc = Object.freeze({ tags: [] }) as Doc;

/** Keywords reported as tags, in the order they are printed. */
const NUMERIC_TAGS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
] as const;

/** Longest JSON default worth printing; a huge default would crowd out the declaration. */
const MAX_DEFAULT_CHARS = 120;

function ownDoc(schema: { readonly [k: string]: unknown }, constraints: boolean): Doc {
  const doc: Doc = { tags: [] };
  const text = typeof schema.description === 'string' ? schema.description : schema.title;
  if (typeof text === 'string' && text.trim() !== '') doc.description = text.trim();
  if (!constraints) return doc;
  if (schema.deprecated === true) doc.tags.push(['deprecated', '']);
  if ('default' in schema) {
    const json = safeJson(schema.default);
    if (json !== undefined && json.length <= MAX_DEFAULT_CHARS) doc.tags.push(['default', json]);
  }
  if (typeof schema.format === 'string' && schema.format !== '') doc.tags.push(['format', schema.format]);
  if (typeof schema.pattern === 'string' && schema.pattern !== '') doc.tags.push(['pattern', schema.pattern]);
  for (const key of NUMERIC_TAGS) {
    const value = schema[key];
    if (typeof value === 'number' && Number.isFinite(value)) doc.tags.push([key, String(value)]);
  }
  return doc;
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    // BigInt or a cycle: a default that cannot be printed is simply not shown.
    return undefined;
  }
}

/** `schema` with its `allOf` parts folded in, when they combine; otherwise `schema` itself. */
function foldAllOf(schema: { readonly [k: string]: unknown }, root: unknown): { readonly [k: string]: unknown } {
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf: parts, ...rest } = schema;
  let merged: Record<string, unknown> | false | null = rest;
  for (const part of parts as unknown[]) {
    const flat = inlineRefs(part, root);
    merged = flat === null || flat === false ? null : mergeSchemas(merged, flat);
    if (!merged) return schema;
  }
  return merged;
}

/**
 * The doc of `schema`. A `$ref` with no description of its own borrows the description and
 * tags of what it points at, so `{ "$ref": "#/$defs/Mode" }` still carries Mode's text; the
 * parts of an `allOf` contribute theirs, with bounds tightened as the merge does.
 */
export function docOf(schema: unknown, root: unknown, constraints: boolean): Doc {
  if (!isSchemaObject(schema)) return EMPTY_DOC;
  const doc = ownDoc(foldAllOf(schema, root), constraints);
  let current: unknown = schema;
  const seen = new Set<string>();
  // Follow a short chain of references; cycles stop at the first repeat.
  while (isSchemaObject(current) && typeof current.$ref === 'string' && seen.size < 8) {
    const target = resolveLocalRef(root, current.$ref);
    if (!target || seen.has(target.pointer)) break;
    seen.add(target.pointer);
    current = target.schema;
    if (!isSchemaObject(current)) break;
    const next = ownDoc(foldAllOf(current, root), constraints);
    if (doc.description === undefined && next.description !== undefined) doc.description = next.description;
    for (const tag of next.tags) if (!doc.tags.some(([name]) => name === tag[0])) doc.tags.push(tag);
  }
  return doc;
}

/** Whether a doc has anything to print. */
export function hasDoc(doc: Doc): boolean {
  return doc.description !== undefined || doc.tags.length > 0;
}

/** Description lines (CRLF and CR normalized, trailing spaces dropped). */
export function docLines(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd());
}
