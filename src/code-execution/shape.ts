/**
 * A compact, bounded description of a JSON value's shape, for the result envelope when a
 * value is too large to come back verbatim: the model learns what the value looked like
 * (types, keys, array lengths with a sample element, string lengths) in a few hundred
 * characters, and can return the part it needs on its next run.
 */

/** Longest shape text; past it the description ends with `…`. */
export const MAX_SHAPE_CHARS = 600;

const MAX_KEYS = 12;

function describe(value: unknown, depth: number): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `string(${value.length})`;
  if (typeof value === 'number' || typeof value === 'boolean') return typeof value;
  if (Array.isArray(value)) {
    if (value.length === 0) return 'array(0)';
    return depth <= 0 ? `array(${value.length})` : `array(${value.length}) of ${describe(value[0], depth - 1)}`;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return '{}';
    if (depth <= 0) return `{ ${keys.length} keys }`;
    const shown = keys.slice(0, MAX_KEYS).map((k) => `${JSON.stringify(k)}: ${describe((value as Record<string, unknown>)[k], depth - 1)}`);
    if (keys.length > MAX_KEYS) shown.push(`… ${keys.length - MAX_KEYS} more keys`);
    return `{ ${shown.join(', ')} }`;
  }
  return typeof value;
}

/**
 * The shape of a JSON value, e.g. `{ "items": array(5000) of { "id": number, "name": string(12) }, "total": number }`.
 * Never longer than {@link MAX_SHAPE_CHARS}: the depth shrinks until it fits, then the text is cut.
 */
export function shapeOf(value: unknown): string {
  for (let depth = 4; depth >= 0; depth--) {
    const text = describe(value, depth);
    if (text.length <= MAX_SHAPE_CHARS) return text;
  }
  return `${describe(value, 0).slice(0, MAX_SHAPE_CHARS - 1)}…`;
}
