/**
 * Python annotations for type models. Objects with properties become `TypedDict` classes,
 * emitted before anything that uses them; a reference to a class still being built (a
 * recursive type) is quoted, so the emitted blocks execute as well as parse.
 */

import { docLines } from './doc.ts';
import { pascalCase, UniqueNames } from './identifiers.ts';
import { isInline, resolveNode, type Definition, type LiteralValue, type PropertyNode, type TypeNode } from './model.ts';
import { commentLines, comments, docstring, isClassField, pyQuoted, pyString } from './python-text.ts';

type ObjectNode = Extract<TypeNode, { kind: 'object' }>;

/** Names the stubs may import from `typing`. */
export const TYPING = ['Any', 'Literal', 'Never', 'Required', 'TypedDict'];

export function indent(lines: readonly string[], by = '    '): string[] {
  return lines.map((line) => (line === '' ? '' : by + line));
}

function literalText(value: Exclude<LiteralValue, null>): string {
  if (typeof value === 'string') return pyString(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return String(value);
}

/** Prints annotations, collecting the class blocks and `typing` imports they need. */
export class PyPrinter {
  readonly blocks: string[][] = [];
  readonly imports = new Set<string>();
  readonly names: UniqueNames;
  private readonly classOf = new Map<TypeNode, string>();
  private readonly merged = new WeakMap<TypeNode, ObjectNode[]>();
  private readonly defined = new Set<string>();
  private readonly inlining = new Set<Definition>();
  prefix = 'Tool';

  constructor(reserved: Iterable<string>) {
    this.names = new UniqueNames(reserved);
  }

  /** Marks `name` as imported from `typing` and returns it. */
  use(name: string): string {
    this.imports.add(name);
    return name;
  }

  /** The annotation for `node`; class names it mentions are added to `refs`. */
  type(node: TypeNode, hint: string, refs: Set<string>): string {
    switch (node.kind) {
      case 'unknown':
        return this.use('Any');
      case 'never':
        return this.use('Never');
      case 'primitive':
        return { string: 'str', number: 'float', integer: 'int', boolean: 'bool', null: 'None' }[node.type];
      case 'literal':
        return this.union([node], hint, refs);
      case 'array':
        return `list[${this.type(node.items, `${hint}Item`, refs)}]`;
      case 'tuple':
        return this.tuple(node, hint, refs);
      case 'object':
        if (node.properties.length > 0) {
          const name = this.classFor(node, hint);
          refs.add(name);
          return name;
        }
        return `dict[str, ${node.index ? this.type(node.index, `${hint}Value`, refs) : this.use('Any')}]`;
      case 'union':
        return this.union(node.members, hint, refs);
      case 'intersection':
        return this.intersection(node, hint, refs);
      case 'ref':
        return this.ref(node.def, hint, refs);
    }
  }

  private ref(def: Definition, hint: string, refs: Set<string>): string {
    const node = def.node ?? { kind: 'unknown' };
    const named = def.hint === '' ? hint : this.prefix + pascalCase(def.hint);
    if (node.kind === 'object' && node.properties.length > 0) return this.type(node, named, refs);
    // A recursive definition that is not an object cannot be a class: it stops at `Any`.
    if (this.inlining.has(def)) return this.use('Any');
    this.inlining.add(def);
    try {
      return this.type(node, isInline(def) ? hint : named, refs);
    } finally {
      this.inlining.delete(def);
    }
  }

  private union(members: TypeNode[], hint: string, refs: Set<string>): string {
    const literals: string[] = [];
    const parts: string[] = [];
    const classes = members.filter((m) => resolveNode(m).kind === 'object').length;
    members.forEach((m, i) => {
      if (m.kind === 'literal' && m.value !== null && !(typeof m.value === 'number' && !Number.isSafeInteger(m.value))) {
        if (literals.length === 0) parts.push('');
        literals.push(literalText(m.value));
      } else if (m.kind === 'literal') {
        parts.push(m.value === null ? 'None' : 'float');
      } else {
        parts.push(this.type(m, classes > 1 ? `${hint}${i + 1}` : hint, refs));
      }
    });
    const literal = literals.length > 0 ? `${this.use('Literal')}[${literals.join(', ')}]` : '';
    return [...new Set(parts.map((p) => (p === '' ? literal : p)))].join(' | ');
  }

  /**
   * JSON arrays arrive in Python as lists, so a tuple schema is a `list` of its element
   * types; the positions are shown in a comment instead (see {@link tupleNote}).
   */
  private tuple(node: Extract<TypeNode, { kind: 'tuple' }>, hint: string, refs: Set<string>): string {
    const members = node.rest ? [...node.items, node.rest] : node.items;
    return `list[${members.length > 0 ? this.union(members, `${hint}Item`, refs) : this.use('Any')}]`;
  }

  /** `[float, str?, ...bool]` for a tuple-typed field, or nothing for other fields. */
  private tupleNote(type: TypeNode, hint: string): string[] {
    const node = resolveNode(type);
    if (node.kind !== 'tuple' || node.items.length === 0) return [];
    const refs = new Set<string>();
    const parts = node.items.map((item, i) => `${this.type(item, `${hint}Item`, refs)}${i < node.required ? '' : '?'}`);
    if (node.rest) parts.push(`...${this.type(node.rest, `${hint}Item`, refs)}`);
    return [`# positions: [${parts.join(', ')}]`];
  }

  /**
   * An intersection of objects is one merged `TypedDict`; over unions of objects it is
   * distributed (`A & (B | C)` → `AB | AC`). Anything else cannot be said and is `Any`.
   */
  private intersection(node: TypeNode & { kind: 'intersection' }, hint: string, refs: Set<string>): string {
    let variants = this.merged.get(node);
    if (!variants) {
      variants = distribute(node.members);
      this.merged.set(node, variants);
    }
    if (variants.length === 0) return this.use('Any');
    const many = variants.length > 1;
    return [...new Set(variants.map((v, i) => this.type(v, many ? `${hint}${i + 1}` : hint, refs)))].join(' | ');
  }

  private classFor(node: ObjectNode, hint: string): string {
    const known = this.classOf.get(node);
    if (known !== undefined) return known;
    const name = this.names.claim(hint);
    this.classOf.set(node, name);
    const allRequired = node.properties.every((p) => p.required);
    const fields = node.properties.map((p) => {
      const refs = new Set<string>();
      let annotation = this.type(p.type, name + pascalCase(p.name), refs);
      // Names not defined yet (this class, or one still being built) must be quoted.
      if ([...refs].some((r) => !this.defined.has(r))) annotation = pyQuoted(annotation);
      if (p.required && !allRequired) annotation = `${this.use('Required')}[${annotation}]`;
      return { property: p, annotation, notes: [...comments(p.doc), ...this.tupleNote(p.type, name + pascalCase(p.name))] };
    });
    const total = allRequired ? '' : ', total=False';
    const about = node.doc.description !== undefined ? docLines(node.doc.description) : [];
    if (node.index && node.index.kind !== 'never') about.push(`Other keys: ${this.type(node.index, `${name}Value`, new Set())}.`);
    this.use('TypedDict');
    let block: string[];
    if (fields.every((f) => isClassField(f.property.name))) {
      const body = [...docstring(about), ...fields.flatMap((f) => [...f.notes, `${f.property.name}: ${f.annotation}`])];
      block = [`class ${name}(TypedDict${total}):`, ...indent(body)];
    } else {
      const entries = fields.flatMap((f) => [...f.notes, `${pyString(f.property.name)}: ${f.annotation},`]);
      block = [...commentLines(about), `${name} = TypedDict(${pyString(name)}, {`, ...indent(entries), `}${total})`];
    }
    this.blocks.push(block);
    this.defined.add(name);
    return name;
  }
}

/** Most object combinations an intersection of unions may expand into before it is `Any`. */
const MAX_VARIANTS = 16;

/** Each way of picking one object per member, merged; empty when a member is not objects. */
function distribute(members: TypeNode[]): ObjectNode[] {
  let combos: ObjectNode[][] = [[]];
  for (const member of members) {
    const resolved = resolveNode(member);
    const options = (resolved.kind === 'union' ? resolved.members : [resolved]).map(resolveNode);
    if (!options.every((o): o is ObjectNode => o.kind === 'object')) return [];
    combos = combos.flatMap((combo) => options.map((o) => [...combo, o]));
    if (combos.length > MAX_VARIANTS) return [];
  }
  return combos.map(mergeObjects);
}

function mergeObjects(parts: ObjectNode[]): ObjectNode {
  const properties: PropertyNode[] = [];
  for (const part of parts) {
    for (const p of part.properties) {
      const same = properties.findIndex((q) => q.name === p.name);
      if (same < 0) properties.push(p);
      else if (p.required && !properties[same]!.required) properties[same] = { ...properties[same]!, required: true };
    }
  }
  const index = parts.find((p) => p.index)?.index ?? null;
  const doc = parts.find((p) => p.doc.description !== undefined)?.doc ?? { tags: [] };
  return { kind: 'object', properties, index, doc };
}
