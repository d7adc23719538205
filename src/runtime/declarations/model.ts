/**
 * The type model both renderers print: a JSON Schema reduced to the shapes a type system can
 * say (objects, arrays, tuples, literals, unions, intersections, named definitions). Anything
 * else is `unknown`. Each local `$ref` target becomes one {@link Definition}, converted once,
 * so shared and recursive definitions cost nothing extra and cannot loop.
 */

import type { Doc } from './doc.ts';

export type Primitive = 'string' | 'number' | 'integer' | 'boolean' | 'null';
export type LiteralValue = string | number | boolean | null;

export type TypeNode =
  | { kind: 'unknown' }
  | { kind: 'never' }
  | { kind: 'primitive'; type: Primitive }
  | { kind: 'literal'; value: LiteralValue }
  | { kind: 'array'; items: TypeNode }
  /** Elements from index `required` on are optional; `rest` types any further elements. */
  | { kind: 'tuple'; items: TypeNode[]; required: number; rest: TypeNode | null }
  /** `index` types keys beyond `properties` (`null`: none declared). */
  | { kind: 'object'; properties: PropertyNode[]; index: TypeNode | null; doc: Doc }
  | { kind: 'union'; members: TypeNode[] }
  | { kind: 'intersection'; members: TypeNode[] }
  | { kind: 'ref'; def: Definition };

export interface PropertyNode {
  name: string;
  required: boolean;
  type: TypeNode;
  doc: Doc;
}

/** One `$ref` target (or the root, pointer `""`). */
export interface Definition {
  pointer: string;
  /** Name suggested by the pointer (`/$defs/Node` → `Node`); empty for the root. */
  hint: string;
  /** Set once converted; `undefined` while the conversion is in progress. */
  node: TypeNode | undefined;
  /** How many references point here; a definition used once can be written inline. */
  uses: number;
  /** Reached from inside its own conversion: must be printed under a name. */
  recursive: boolean;
}

export interface SchemaModel {
  root: TypeNode;
  /** Every definition reached, in the order first referenced. */
  definitions: Definition[];
}

export interface ModelOptions {
  maxDepth: number;
  constraints: boolean;
}

export const UNKNOWN: TypeNode = Object.freeze({ kind: 'unknown' });
export const NEVER: TypeNode = Object.freeze({ kind: 'never' });

/** Whether a definition can be written where it is used instead of under a name. */
export function isInline(def: Definition): boolean {
  const kind = def.node?.kind;
  // A name for `string` or `unknown` costs the reader more than it saves.
  if (kind === 'unknown' || kind === 'never' || kind === 'primitive' || kind === 'literal') return true;
  return !def.recursive && def.uses <= 1;
}

/** Follows references to the node they stand for. */
export function resolveNode(node: TypeNode): TypeNode {
  let current = node;
  for (let hops = 0; current.kind === 'ref' && hops < 64; hops++) current = current.def.node ?? UNKNOWN;
  return current.kind === 'ref' ? UNKNOWN : current;
}

/** Builds a union, flattening nested unions and dropping members another member covers. */
export function union(members: TypeNode[]): TypeNode {
  const flat: TypeNode[] = [];
  for (const m of members) {
    if (m.kind === 'union') flat.push(...m.members);
    else if (m.kind !== 'never') flat.push(m);
  }
  if (flat.some((m) => m.kind === 'unknown')) return UNKNOWN;
  const prims = new Set(flat.flatMap((m) => (m.kind === 'primitive' ? [m.type] : [])));
  const hasTrue = flat.some((m) => m.kind === 'literal' && m.value === true);
  const hasFalse = flat.some((m) => m.kind === 'literal' && m.value === false);
  const out: TypeNode[] = [];
  const keys = new Set<string>();
  for (let m of flat) {
    if (m.kind === 'literal' && typeof m.value === 'boolean' && hasTrue && hasFalse) m = { kind: 'primitive', type: 'boolean' };
    if (m.kind === 'primitive' && m.type === 'integer' && prims.has('number')) continue;
    if (m.kind === 'literal' && literalCovered(m.value, prims)) continue;
    const key = nodeKey(m);
    if (keys.has(key)) continue;
    keys.add(key);
    out.push(m);
  }
  if (out.length === 0) return NEVER;
  return out.length === 1 ? out[0]! : { kind: 'union', members: out };
}

function literalCovered(value: LiteralValue, prims: Set<Primitive>): boolean {
  if (typeof value === 'string') return prims.has('string');
  if (typeof value === 'boolean') return prims.has('boolean');
  if (typeof value === 'number') return prims.has('number') || (Number.isInteger(value) && prims.has('integer'));
  return prims.has('null');
}

/** Builds an intersection; `unknown` members vanish and any `never` makes the whole `never`. */
export function intersection(members: TypeNode[]): TypeNode {
  const flat: TypeNode[] = [];
  for (const m of members) {
    if (m.kind === 'intersection') flat.push(...m.members);
    else if (m.kind === 'never') return NEVER;
    else if (m.kind !== 'unknown') flat.push(m);
  }
  const keys = new Set<string>();
  const out = flat.filter((m) => {
    const key = nodeKey(m);
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  });
  if (out.length === 0) return UNKNOWN;
  return out.length === 1 ? out[0]! : { kind: 'intersection', members: out };
}

/** A structural key, for de-duplicating union members. References compare by pointer. */
export function nodeKey(node: TypeNode): string {
  switch (node.kind) {
    case 'unknown':
    case 'never':
      return node.kind;
    case 'primitive':
      return node.type;
    case 'literal':
      return `=${JSON.stringify(node.value)}`;
    case 'array':
      return `[${nodeKey(node.items)}]`;
    case 'tuple':
      return `(${node.items.map(nodeKey).join(',')};${node.required};${node.rest ? nodeKey(node.rest) : ''})`;
    case 'object':
      return `{${node.properties
        .map((p) => `${JSON.stringify(p.name)}${p.required ? '' : '?'}:${nodeKey(p.type)}`)
        .join(',')};${node.index ? nodeKey(node.index) : ''}}`;
    case 'union':
      return `|(${node.members.map(nodeKey).join(',')})`;
    case 'intersection':
      return `&(${node.members.map(nodeKey).join(',')})`;
    case 'ref':
      return `#${node.def.pointer}`;
  }
}
