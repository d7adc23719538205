/**
 * The part of a script's return value that fits the model's result cap (issue 44, item 3).
 * Before, a value over the cap was left out whole; now the model gets its beginning as valid
 * JSON — an array's first items, an object's first members, a long string's start — and a list
 * of the cuts, each with the JSON path it was made at and what was kept of what:
 *
 *   value: { rows: [ {...}, … 118 more ] }   truncated.value.cuts: [{ path: "$.rows", kept: 120, of: 50000 }]
 *
 * Pure: works on the value, never mutates it. Bounded: each level measures at most the items it
 * keeps plus one, and at most {@link MAX_CUTS} cuts are listed.
 */

/** Cuts listed in the envelope (the first ones, outermost first). */
export const MAX_CUTS = 8;
/** Nesting walked to find room; deeper values that do not fit are left out whole. */
const MAX_DEPTH = 32;

/** One place where the value was cut. */
export interface ValueCut {
  /** JSON path of the container (or string) that was cut: `$`, `$.rows`, `$.rows[3].text`. */
  path: string;
  /** Array items, object members or string characters kept … */
  kept: number;
  /** … of how many. */
  of: number;
}

const size = (value: unknown): number => JSON.stringify(value)?.length ?? 4;

function member(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * The longest prefix of `value` whose JSON takes at most `room` characters, and where it was
 * cut; undefined when not even an empty container fits.
 */
export function valuePrefix(value: unknown, room: number): { value: unknown; cuts: ValueCut[] } | undefined {
  if (size(value) <= room) return { value, cuts: [] };
  const cuts: ValueCut[] = [];
  const fitted = fit(value, room, '$', cuts, 0);
  return fitted === undefined ? undefined : { value: fitted, cuts: cuts.slice(0, MAX_CUTS) };
}

/**
 * `value`, known not to fit `room` (its caller measured it), cut to fit; it does not measure
 * `value` whole again. Each level along the cut still serializes the item it descends into, so
 * the cost is bounded by MAX_DEPTH serializations of the value (itself at most maxReturnBytes):
 * a 30-level nesting of a 4 MB string, 423 → 364 ms of CPU with this change (load ~4).
 */
function fit(value: unknown, room: number, path: string, cuts: ValueCut[], depth: number): unknown {
  if (room <= 0) return undefined;
  if (typeof value === 'string') {
    // Characters kept so that the escaped form fits; escapes are at most 6 characters each.
    let n = Math.max(0, room - 2);
    let text = value.slice(0, n);
    while (n > 0 && size(text) > room) {
      n = Math.floor(n * 0.8);
      text = value.slice(0, n);
    }
    cuts.push({ path, kept: text.length, of: value.length });
    return text;
  }
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH || room < 2) return undefined;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    let used = 2;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const cost = size(item) + (out.length > 0 ? 1 : 0);
      if (used + cost <= room) {
        out.push(item);
        used += cost;
        continue;
      }
      // Items are kept whole; only an array whose first item alone is too large keeps that
      // item's beginning, so that something of it is seen.
      if (out.length === 0) {
        const part = fit(item, room - used, `${path}[${i}]`, cuts, depth + 1);
        if (part !== undefined) out.push(part);
      }
      break;
    }
    cuts.unshift({ path, kept: out.length, of: value.length });
    return out;
  }
  const out: Record<string, unknown> = {};
  // Members JSON leaves out are not members the model could miss.
  const keys = Object.keys(value).filter((key) => {
    const item = (value as Record<string, unknown>)[key];
    return item !== undefined && typeof item !== 'function' && typeof item !== 'symbol';
  });
  let used = 2;
  let kept = 0;
  for (const key of keys) {
    const item = (value as Record<string, unknown>)[key];
    const head = JSON.stringify(key).length + 1 + (kept > 0 ? 1 : 0);
    const cost = head + size(item);
    if (used + cost <= room) {
      out[key] = item;
      used += cost;
      kept++;
      continue;
    }
    const part = fit(item, room - used - head, member(path, key), cuts, depth + 1);
    if (part !== undefined) {
      out[key] = part;
      used += head + size(part);
      kept++;
    }
    // Later, smaller members may still fit.
  }
  if (kept < keys.length) cuts.unshift({ path, kept, of: keys.length });
  return out;
}
