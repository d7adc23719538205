/**
 * Input schemas and the exact TypeScript argument type each must render to. Shared by the
 * snippet tests and the test that type-checks every rendering.
 */

import type { JsonSchema } from '../../../src/runtime/declarations/index.ts';

export interface ArgsCase {
  name: string;
  schema: JsonSchema;
  /** The text between `t(args: ` (or `t(args?: `) and `): Promise<`. */
  args: string;
  optional?: boolean;
}

const obj = (properties: Record<string, JsonSchema>, required: string[] = [], extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required,
  ...extra,
});

export const ARGS_CASES: ArgsCase[] = [
  {
    name: 'required and optional properties',
    schema: obj({ a: { type: 'string' }, b: { type: 'number' }, c: { type: 'integer' }, d: { type: 'boolean' }, e: { type: 'null' } }, ['a', 'c']),
    args: '{ a: string; b?: number; c: number; d?: boolean; e?: null }',
  },
  {
    name: 'no required properties makes args optional',
    schema: obj({ a: { type: 'string' } }),
    args: '{ a?: string }',
    optional: true,
  },
  {
    name: 'required name without a property schema is unknown',
    schema: obj({}, ['x']),
    args: '{ x: unknown }',
  },
  {
    name: 'arrays, and arrays of unions',
    schema: obj({ tags: { type: 'array', items: { type: 'string' } }, mixed: { type: 'array', items: { type: ['string', 'number'] } }, any: { type: 'array' } }, ['tags', 'mixed', 'any']),
    args: '{ tags: string[]; mixed: (string | number)[]; any: unknown[] }',
  },
  {
    name: 'tuple from prefixItems (closed when nothing types the tail)',
    schema: obj({ p: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }] } }, ['p']),
    args: '{ p: [number, string] }',
  },
  {
    name: 'tuple with a typed rest and optional elements from minItems',
    schema: obj({ p: { type: 'array', prefixItems: [{ type: 'number' }, { type: ['string', 'null'] }], items: { type: 'boolean' }, minItems: 1 } }, ['p']),
    args: ['{', '  /** @minItems 1 */', '  p: [number, (string | null)?, ...boolean[]];', '}'].join('\n'),
  },
  {
    name: 'legacy array-form items with additionalItems',
    schema: obj({ p: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: { type: 'boolean' } } }, ['p']),
    args: '{ p: [string, number, ...boolean[]] }',
  },
  {
    name: 'legacy tuple closed by additionalItems false and cut by maxItems',
    schema: obj({ p: { items: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }], additionalItems: false, maxItems: 2 } }, ['p']),
    args: ['{', '  /** @maxItems 2 */', '  p: [string, number];', '}'].join('\n'),
  },
  {
    name: 'enum and const literals',
    schema: obj({ mode: { enum: ['fast', 'slow', 3, null] }, fixed: { const: 'v1' }, on: { const: true }, flag: { enum: [true, false] } }, ['mode', 'fixed', 'on', 'flag']),
    args: '{ mode: "fast" | "slow" | 3 | null; fixed: "v1"; on: true; flag: boolean }',
  },
  {
    name: 'string literals are escaped',
    schema: obj({ q: { enum: ['say "hi"', 'back\\slash', 'line\nbreak'] } }, ['q']),
    args: '{ q: "say \\"hi\\"" | "back\\\\slash" | "line\\nbreak" }',
  },
  {
    name: 'unions from anyOf, oneOf and type arrays',
    schema: obj({ a: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }, b: { oneOf: [{ type: 'integer' }, { const: 'auto' }] }, c: { type: ['string', 'null'] } }, ['a', 'b', 'c']),
    args: '{ a: string | string[]; b: number | "auto"; c: string | null }',
  },
  {
    name: 'shared keywords are pushed into each anyOf branch',
    schema: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } }, anyOf: [{ required: ['id'] }, { required: ['name'] }] },
    args: '{ id: string; name?: string } | { id?: string; name: string }',
  },
  {
    name: 'OpenAPI nullable',
    schema: obj({ a: { type: 'string', nullable: true } }, ['a']),
    args: '{ a: string | null }',
  },
  {
    name: 'index signature from additionalProperties',
    schema: obj({ env: { type: 'object', additionalProperties: { type: 'string' } } }, ['env']),
    args: '{ env: { [key: string]: string } }',
  },
  {
    name: 'index signature from patternProperties, merged with additionalProperties',
    schema: obj({ m: { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: { type: 'number' } } }, ['m']),
    args: '{ m: { [key: string]: string | number } }',
  },
  {
    name: 'bare object and closed empty object',
    schema: obj({ any: { type: 'object' }, none: { type: 'object', additionalProperties: false } }, ['any', 'none']),
    args: '{ any: { [key: string]: unknown }; none: { [key: string]: never } }',
  },
  {
    name: 'index signature that admits the properties stays inline',
    schema: obj({ m: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: { type: 'string' } } }, ['m']),
    args: '{ m: { a: string; [key: string]: string } }',
  },
  {
    name: 'index signature that does not admit the properties becomes an intersection',
    schema: obj({ m: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'string' } }, required: ['a'], additionalProperties: { type: 'string' } } }, ['m']),
    args: '{ m: { a: number; b?: string } & { [key: string]: string } }',
  },
  {
    name: 'additionalProperties true with properties is an unknown index',
    schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
    args: '{ a?: string; [key: string]: unknown }',
    optional: true,
  },
  {
    name: 'property names that are not identifiers are quoted',
    schema: obj({ 'x-y': { type: 'string' }, '0': { type: 'number' }, $ok: { type: 'string' }, class: { type: 'string' } }, ['x-y']),
    args: '{ "0"?: number; "x-y": string; $ok?: string; class?: string }',
  },
  {
    name: 'nested objects break over lines when long or documented',
    schema: obj({ opts: obj({ depth: { type: 'integer', description: 'How deep' }, follow: { type: 'boolean' } }, ['depth']) }, ['opts']),
    args: ['{', '  opts: {', '    /** How deep */', '    depth: number;', '    follow?: boolean;', '  };', '}'].join('\n'),
  },
  {
    name: 'descriptions, multi-line descriptions, constraints and comment terminators',
    schema: obj(
      {
        a: { type: 'string', description: 'First line.\nSecond line with */ inside.', minLength: 1, pattern: '^[a-z]+$' },
        b: { type: 'integer', title: 'Count', minimum: 0, maximum: 10, default: 3 },
        c: { type: 'string', deprecated: true, format: 'uri' },
      },
      ['a'],
    ),
    args: [
      '{',
      '  /**',
      '   * First line.',
      '   * Second line with *\\/ inside.',
      '   * @pattern ^[a-z]+$',
      '   * @minLength 1',
      '   */',
      '  a: string;',
      '  /**',
      '   * Count',
      '   * @default 3',
      '   * @minimum 0',
      '   * @maximum 10',
      '   */',
      '  b?: number;',
      '  /**',
      '   * @deprecated',
      '   * @format uri',
      '   */',
      '  c?: string;',
      '}',
    ].join('\n'),
  },
  {
    name: '$ref to $defs used once is inlined, with the definition description',
    schema: obj({ mode: { $ref: '#/$defs/Mode' } }, ['mode'], { $defs: { Mode: { enum: ['a', 'b'], description: 'Which mode' } } }),
    args: ['{', '  /** Which mode */', '  mode: "a" | "b";', '}'].join('\n'),
  },
  {
    name: '$ref to definitions used twice gets a name',
    schema: obj({ from: { $ref: '#/definitions/Point' }, to: { $ref: '#/definitions/Point' } }, ['from', 'to'], {
      definitions: { Point: obj({ x: { type: 'number' }, y: { type: 'number' } }, ['x', 'y']) },
    }),
    args: '{ from: TPoint; to: TPoint }',
  },
  {
    name: 'recursive $ref gets a named type',
    schema: { $ref: '#/$defs/Node', $defs: { Node: obj({ value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }, ['value']) } },
    args: 'TNode',
  },
  {
    name: 'root recursion through #',
    schema: obj({ name: { type: 'string' }, parent: { $ref: '#' } }, ['name']),
    args: 'TArgs',
  },
  {
    name: 'a cycle through unions only cannot be named and is unknown',
    schema: obj({ a: { $ref: '#/$defs/A' } }, ['a'], { $defs: { A: { anyOf: [{ $ref: '#/$defs/B' }, { type: 'string' }] }, B: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'number' }] } } }),
    args: '{ a: unknown }',
  },
  {
    name: 'unresolvable and remote $refs are unknown',
    schema: obj({ a: { $ref: '#/$defs/Missing' }, b: { $ref: 'https://example.com/s.json' } }, ['a', 'b']),
    args: '{ a: unknown; b: unknown }',
  },
  {
    name: 'allOf of objects merges into one object',
    schema: { allOf: [{ $ref: '#/$defs/Base' }, obj({ extra: { type: 'boolean' } }, ['extra'])], $defs: { Base: obj({ id: { type: 'string' } }, ['id']) } },
    args: '{ id: string; extra: boolean }',
  },
  {
    name: 'allOf that does not merge is an intersection',
    schema: obj({ v: { allOf: [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, { anyOf: [{ type: 'number' }, { type: 'boolean' }] }] } }, ['v']),
    args: '{ v: (string | number) & (number | boolean) }',
  },
  {
    name: 'contradicting allOf is never',
    schema: obj({ v: { allOf: [{ type: 'string' }, { type: 'number' }] } }, ['v']),
    args: '{ v: never }',
  },
  {
    name: 'allOf intersects enums, tightens bounds and keeps the first description',
    schema: obj({ v: { allOf: [{ enum: ['a', 'b', 'c'], minLength: 1, description: 'First' }, { enum: ['b', 'c', 'd'], minLength: 2, description: 'Second' }] } }, ['v']),
    args: ['{', '  /**', '   * First', '   * @minLength 2', '   */', '  v: "b" | "c";', '}'].join('\n'),
  },
  {
    name: 'allOf with conflicting consts is never',
    schema: obj({ v: { allOf: [{ const: 1 }, { const: 2 }] } }, ['v']),
    args: '{ v: never }',
  },
  {
    name: '$ref pointers are percent- and tilde-decoded',
    schema: obj({ a: { $ref: '#/$defs/a%20b' }, b: { $ref: '#/$defs/c~1d' } }, ['a', 'b'], { $defs: { 'a b': { type: 'string' }, 'c/d': { type: 'integer' } } }),
    args: '{ a: string; b: number }',
  },
  {
    name: 'what a type cannot say is unknown',
    schema: obj({ a: { not: { type: 'string' } }, b: { type: 'date' }, c: { enum: [{ x: 1 }, 'y'] }, d: true, e: {} }, ['a', 'b', 'c', 'd', 'e']),
    args: '{ a: unknown; b: unknown; c: unknown; d: unknown; e: unknown }',
  },
  {
    name: 'false schema is never',
    schema: obj({ gone: false }),
    args: '{ gone?: never }',
    optional: true,
  },
  {
    name: 'non-object input schema is passed through',
    schema: { type: 'string' },
    args: 'string',
  },
  {
    name: 'empty schema makes args optional unknown',
    schema: {},
    args: 'unknown',
    optional: true,
  },
];
