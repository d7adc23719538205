/**
 * Whether a listed JSON Schema is already in the form OpenAI's strict function calling
 * accepts as it stands: every object closed (`additionalProperties: false`) with every property
 * required, and only keywords strict mode supports. Pure; the adapters decide with it whether a
 * tool may be offered strict without rewriting its schema (a rewrite would change what the tool
 * accepts: optional properties become required-and-nullable, open objects become closed).
 */

/** Keywords strict mode supports on a schema node; anything else makes a schema non-strict. */
const SUPPORTED = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf',
  '$ref', '$defs', 'definitions', 'description', 'title',
  'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minItems', 'maxItems',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nodeIsStrict(node: unknown, depth: number): boolean {
  if (depth > 64 || !isRecord(node)) return false;
  for (const key of Object.keys(node)) if (!SUPPORTED.has(key)) return false;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('object') || node.properties !== undefined) {
    if (node.additionalProperties !== false || !isRecord(node.properties)) return false;
    const names = Object.keys(node.properties);
    const required = Array.isArray(node.required) ? node.required : [];
    if (required.length !== names.length || !names.every((n) => required.includes(n))) return false;
    if (!names.every((n) => nodeIsStrict((node.properties as Record<string, unknown>)[n], depth + 1))) return false;
  }
  if (node.items !== undefined && !nodeIsStrict(node.items, depth + 1)) return false;
  if (node.anyOf !== undefined && !(Array.isArray(node.anyOf) && node.anyOf.every((s) => nodeIsStrict(s, depth + 1)))) return false;
  for (const defs of [node.$defs, node.definitions]) {
    if (defs !== undefined && !(isRecord(defs) && Object.values(defs).every((s) => nodeIsStrict(s, depth + 1)))) return false;
  }
  return true;
}

/** True when `schema` is an object schema strict function calling accepts unchanged. */
export function isStrictCompatible(schema: unknown): boolean {
  return isRecord(schema) && schema.type === 'object' && nodeIsStrict(schema, 0);
}
