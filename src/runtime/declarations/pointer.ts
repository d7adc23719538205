/**
 * Resolution of local `$ref`s (`#`, `#/$defs/Node`, `#/definitions/a~1b`). Remote references
 * and `$anchor` names are not followed: the caller treats them as unresolvable.
 */

/** A resolved reference: the normalized pointer (a stable key) and the schema it names. */
export interface ResolvedRef {
  pointer: string;
  schema: unknown;
}

/** Whether `value` is a non-array object, i.e. something keywords can be read from. */
export function isSchemaObject(value: unknown): value is { readonly [keyword: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves `ref` against `root`, or `undefined` when it is not a local pointer that exists. */
export function resolveLocalRef(root: unknown, ref: string): ResolvedRef | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    // A malformed percent-escape cannot name anything in the document.
    return undefined;
  }
  if (fragment !== '' && !fragment.startsWith('/')) return undefined;
  let node: unknown = root;
  if (fragment !== '') {
    for (const raw of fragment.slice(1).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(node)) {
        if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
        node = node[Number(key)];
      } else if (isSchemaObject(node) && Object.hasOwn(node, key)) {
        node = node[key];
      } else {
        return undefined;
      }
      if (node === undefined) return undefined;
    }
  }
  return { pointer: fragment, schema: node };
}

/** The last segment of a pointer, used to name a definition (`/$defs/TreeNode` → `TreeNode`). */
export function pointerName(pointer: string): string {
  const last = pointer.slice(pointer.lastIndexOf('/') + 1);
  return last.replace(/~1/g, '/').replace(/~0/g, '~');
}
