/**
 * JSON Schema → {@link TypeNode}. Reads every keyword defensively (schemas come from tool
 * servers), converts each `$ref` target once, and stops at `maxDepth` with `unknown` so a
 * hostile or absurd schema costs bounded time and stack.
 */

import { docOf } from './doc.ts';
import { inlineRefs, mergeSchemas } from './merge.ts';
import {
  intersection, NEVER, union, UNKNOWN,
  type Definition, type ModelOptions, type PropertyNode, type SchemaModel, type TypeNode,
} from './model.ts';
import { isSchemaObject, pointerName, resolveLocalRef } from './pointer.ts';

type SchemaRecord = { readonly [keyword: string]: unknown };

/** Keywords that shape a type; a schema with none of them adds nothing to a sibling `$ref`. */
const SHAPE_KEYWORDS = [
  'type', 'properties', 'required', 'additionalProperties', 'patternProperties', 'items',
  'prefixItems', 'additionalItems', 'enum', 'const', 'allOf', 'anyOf', 'oneOf', '$ref',
];
const OBJECT_KEYWORDS = ['properties', 'required', 'additionalProperties', 'patternProperties'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'additionalItems'];

const NULL: TypeNode = Object.freeze({ kind: 'primitive', type: 'null' });

function hasShape(schema: SchemaRecord): boolean {
  return SHAPE_KEYWORDS.some((k) => Object.hasOwn(schema, k));
}

function without(schema: SchemaRecord, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = schema;
  return rest;
}

function literal(value: unknown): TypeNode {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return { kind: 'literal', value };
  if (typeof value === 'number' && Number.isFinite(value)) return { kind: 'literal', value };
  return UNKNOWN;
}

/** Declared types, or the type implied by object/array keywords when `type` is absent. */
function typeList(schema: SchemaRecord): string[] | undefined {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) {
    const list = type.filter((t): t is string => typeof t === 'string');
    return list.length > 0 ? list : undefined;
  }
  if (OBJECT_KEYWORDS.some((k) => Object.hasOwn(schema, k))) return ['object'];
  if (ARRAY_KEYWORDS.some((k) => Object.hasOwn(schema, k))) return ['array'];
  return undefined;
}

class Converter {
  private readonly defs = new Map<string, Definition>();
  readonly order: Definition[] = [];

  constructor(
    private readonly root: unknown,
    private readonly options: ModelOptions,
  ) {}

  ref(ref: string, depth: number): TypeNode {
    const target = resolveLocalRef(this.root, ref);
    if (!target) return UNKNOWN;
    const known = this.defs.get(target.pointer);
    if (known) {
      known.uses++;
      if (known.node === undefined) known.recursive = true;
      return { kind: 'ref', def: known };
    }
    const def: Definition = { pointer: target.pointer, hint: pointerName(target.pointer), node: undefined, uses: 1, recursive: false };
    this.defs.set(target.pointer, def);
    this.order.push(def);
    def.node = this.convert(target.schema, depth + 1);
    return { kind: 'ref', def };
  }

  convert(schema: unknown, depth: number): TypeNode {
    if (schema === true || schema === undefined) return UNKNOWN;
    if (schema === false) return NEVER;
    if (!isSchemaObject(schema) || depth > this.options.maxDepth) return UNKNOWN;
    let node: TypeNode;
    if (typeof schema.$ref === 'string') {
      const target = this.ref(schema.$ref, depth);
      const rest = without(schema, '$ref');
      node = hasShape(rest) ? intersection([target, this.local(rest, depth)]) : target;
    } else {
      node = this.local(schema, depth);
    }
    // OpenAPI's `nullable` widens whatever the rest of the schema says.
    return schema.nullable === true ? union([node, NULL]) : node;
  }

  private local(s: SchemaRecord, depth: number): TypeNode {
    if (Array.isArray(s.allOf) && s.allOf.length > 0) return this.allOf(s, s.allOf, depth);
    for (const key of ['anyOf', 'oneOf']) {
      const alternatives = s[key];
      if (Array.isArray(alternatives) && alternatives.length > 0) return this.alternatives(without(s, key), alternatives, depth);
    }
    if (Object.hasOwn(s, 'const')) return literal(s.const);
    if (Array.isArray(s.enum)) return union(s.enum.map(literal));
    const types = typeList(s);
    if (!types) return UNKNOWN;
    return union(types.map((t) => this.forType(s, t, depth)));
  }

  /** `allOf` as one merged object when the parts combine, else as an intersection. */
  private allOf(s: SchemaRecord, parts: unknown[], depth: number): TypeNode {
    const rest = without(s, 'allOf');
    // `{ allOf: [{ $ref }] }` is the pre-2019 way to annotate a reference: keep the reference.
    if (parts.length === 1 && !hasShape(rest)) return this.convert(parts[0], depth + 1);
    let merged: Record<string, unknown> | false | null = rest;
    for (const part of parts) {
      const flat = inlineRefs(part, this.root);
      merged = flat === null || flat === false ? flat : mergeSchemas(merged, flat);
      if (merged === null || merged === false) break;
    }
    if (merged === false) return NEVER;
    if (merged !== null) return this.convert(merged, depth + 1);
    return intersection([this.local(rest, depth + 1), ...parts.map((p) => this.convert(p, depth + 1))]);
  }

  /** `anyOf`/`oneOf`: a union, with keywords shared by the schema pushed into each branch. */
  private alternatives(rest: SchemaRecord, options: unknown[], depth: number): TypeNode {
    if (!hasShape(rest)) return union(options.map((o) => this.convert(o, depth + 1)));
    return union(
      options.map((option) => {
        const flat = inlineRefs(option, this.root);
        const merged = flat === null || flat === false ? flat : mergeSchemas(rest, flat);
        if (merged === false) return NEVER;
        if (merged === null) return intersection([this.local(rest, depth + 1), this.convert(option, depth + 1)]);
        return this.convert(merged, depth + 1);
      }),
    );
  }

  private forType(s: SchemaRecord, type: string, depth: number): TypeNode {
    switch (type) {
      case 'string':
      case 'number':
      case 'integer':
      case 'boolean':
      case 'null':
        return { kind: 'primitive', type };
      case 'array':
        return this.array(s, depth);
      case 'object':
        return this.object(s, depth);
      default:
        return UNKNOWN;
    }
  }

  private array(s: SchemaRecord, depth: number): TypeNode {
    const modern = Array.isArray(s.prefixItems);
    const prefix = modern ? (s.prefixItems as unknown[]) : Array.isArray(s.items) ? s.items : null;
    if (!prefix) return { kind: 'array', items: this.convert(s.items, depth + 1) };
    const maxItems = typeof s.maxItems === 'number' && s.maxItems >= 0 ? Math.floor(s.maxItems) : Infinity;
    const shown = prefix.slice(0, Math.min(prefix.length, maxItems));
    const restSchema = modern ? s.items : s.additionalItems;
    // An open tail is not shown unless the schema types it: a prefix written out is almost
    // always meant as the whole tuple, and `...unknown[]` would only blur it.
    const rest = restSchema === undefined || restSchema === false || maxItems <= shown.length ? null : this.convert(restSchema, depth + 1);
    if (shown.length === 0 && rest) return { kind: 'array', items: rest };
    const minItems = typeof s.minItems === 'number' ? Math.max(0, Math.floor(s.minItems)) : shown.length;
    return {
      kind: 'tuple',
      items: shown.map((item) => this.convert(item, depth + 1)),
      required: Math.min(minItems, shown.length),
      rest,
    };
  }

  private object(s: SchemaRecord, depth: number): TypeNode {
    const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
    const declared = isSchemaObject(s.properties) ? Object.entries(s.properties) : [];
    const properties: PropertyNode[] = declared.map(([name, schema]) => ({
      name,
      required: required.has(name),
      type: this.convert(schema, depth + 1),
      doc: docOf(schema, this.root, this.options.constraints),
    }));
    for (const name of required) {
      if (!declared.some(([n]) => n === name)) properties.push({ name, required: true, type: UNKNOWN, doc: { tags: [] } });
    }
    const index: TypeNode[] = [];
    const patterns = isSchemaObject(s.patternProperties) ? Object.values(s.patternProperties) : [];
    for (const pattern of patterns) index.push(this.convert(pattern, depth + 1));
    const extra = s.additionalProperties;
    if (isSchemaObject(extra) || extra === true) index.push(this.convert(extra, depth + 1));
    else if (extra === undefined && properties.length === 0 && patterns.length === 0) index.push(UNKNOWN);
    return {
      kind: 'object',
      properties,
      index: index.length > 0 ? union(index) : null,
      doc: docOf(s, this.root, this.options.constraints),
    };
  }
}

/** Whether `node` reaches `target` without passing through an object, array or tuple. */
function unguarded(node: TypeNode, target: Definition, seen: Set<Definition>): boolean {
  if (node.kind === 'ref') {
    if (node.def === target) return true;
    if (seen.has(node.def) || node.def.node === undefined) return false;
    seen.add(node.def);
    return unguarded(node.def.node, target, seen);
  }
  if (node.kind === 'union' || node.kind === 'intersection') return node.members.some((m) => unguarded(m, target, seen));
  return false;
}

/** Converts `schema` (the root that its local `$ref`s resolve against) into a {@link SchemaModel}. */
export function buildModel(schema: unknown, options: ModelOptions): SchemaModel {
  const converter = new Converter(schema, options);
  const root = converter.ref('#', 0);
  // `type A = A | string` names nothing; such a definition is unknowable, not an error.
  for (const def of converter.order) {
    if (def.node && unguarded(def.node, def, new Set())) def.node = UNKNOWN;
  }
  return { root, definitions: converter.order };
}
