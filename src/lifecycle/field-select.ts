/**
 * RFC-007 §6.3 field selection: reduce a call's arguments to the paths a filter rule named.
 *
 * A path is `.`-separated member names. It selects the value it ends on whole (objects and
 * arrays included); it selects nothing when a member is missing or when it passes through
 * anything that is not a plain object (arrays are not descended into). Selected members
 * keep their place: the result has the input's structure and key order, whatever order the
 * paths came in. Selecting nothing yields `{}`.
 */

/** A tree of requested member names; `WHOLE` marks a member selected in full. */
type Selection = Map<string, Selection | typeof WHOLE>;
const WHOLE = Symbol('whole');

/**
 * Returns a new object holding only the selected members of `input`. Leaf values are shared
 * with `input`, not copied: serialize the result before the arguments can change.
 */
export function selectFields(input: Readonly<Record<string, unknown>>, paths: readonly string[]): Record<string, unknown> {
  return pick(input, buildSelection(paths));
}

function buildSelection(paths: readonly string[]): Selection {
  const root: Selection = new Map();
  for (const path of paths) {
    const segments = path.split('.');
    let node = root;
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i]!;
      const existing = node.get(name);
      if (existing === WHOLE) break; // a shorter path already takes this member whole
      if (i === segments.length - 1) {
        node.set(name, WHOLE); // a whole member absorbs any deeper paths into it
        break;
      }
      let child = existing;
      if (child === undefined) {
        child = new Map();
        node.set(name, child);
      }
      node = child;
    }
  }
  return root;
}

function pick(source: Readonly<Record<string, unknown>>, selection: Selection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Walk the source, not the selection, so the output keeps the source's member order.
  for (const key of Object.keys(source)) {
    const wanted = selection.get(key);
    if (wanted === undefined) continue;
    const value = source[key];
    if (wanted === WHOLE) {
      setMember(out, key, value);
    } else if (isPlainObject(value)) {
      const inner = pick(value, wanted);
      if (Object.keys(inner).length > 0) setMember(out, key, inner);
    }
  }
  return out;
}

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Defines an own data member, so a `__proto__` key from parsed JSON stays a member. */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
