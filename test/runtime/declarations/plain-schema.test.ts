import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { isPlainSchema } from '../../../src/runtime/declarations/plain-schema.ts';
import { compileValidator, type JsonSchema } from '../../../src/runtime/declarations/index.ts';

const CODE_EXECUTION_LIKE = {
  type: 'object',
  properties: {
    code: { type: 'string', description: 'The script.' },
    language: { type: 'string', enum: ['javascript', 'python'] },
    time_limit_ms: { type: 'integer', minimum: 1000 },
    reset: { type: 'boolean' },
  },
  required: ['code'],
  additionalProperties: false,
};

/**
 * ajv's own meta-schema verdict in each dialect (strict off and formats on, as dialects.ts
 * configures it). The root's `$schema` only picks the dialect (isPlainSchema takes only the
 * dialects' own URIs there): each meta-schema judges the rest.
 */
const addFormats = (formats as unknown as { default: (ajv: object) => void }).default;
const metas = [new Ajv({ strict: false }), new Ajv2019({ strict: false }), new Ajv2020({ strict: false })];
for (const ajv of metas) addFormats(ajv);
const metaValid = ({ $schema: _, ...schema }: Record<string, unknown>) => metas.every((ajv) => ajv.validateSchema(schema) === true);

/** A small deterministic generator (no dependency on Math.random's sequence). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** Random schemas from the whitelisted keywords and beyond, with values of right and wrong types. */
function randomSchema(next: () => number, depth = 0): Record<string, unknown> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const values = (): unknown => pick([1, -1, 0, 1.5, 'x', true, null, [], ['a'], ['a', 'a'], ['string'], ['string', 'string'], {}, 'string', 'date', ['integer', 'null']]);
  const keys = ['type', 'enum', 'required', 'minimum', 'multipleOf', 'minLength', 'maxItems', 'uniqueItems', 'format', 'description', 'examples', 'properties', 'items', 'anyOf', 'not', 'additionalProperties', 'pattern', '$ref', 'exclusiveMinimum', '$schema', 'nullable', 'default'];
  const schema: Record<string, unknown> = {};
  for (let n = Math.floor(next() * 4); n > 0; n--) {
    const key = pick(keys);
    const sub = () => (depth < 3 && next() < 0.7 ? randomSchema(next, depth + 1) : pick([true, false, 1, 'x']));
    if (key === 'properties') schema[key] = next() < 0.8 ? { a: sub(), b: sub() } : values();
    else if (key === 'items' || key === 'not' || key === 'additionalProperties') schema[key] = sub();
    else if (key === 'anyOf') schema[key] = next() < 0.8 ? [sub(), sub()] : values();
    else if (key === '$schema') schema[key] = pick(['http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2020-12/schema', 'not a uri', 1]);
    else schema[key] = values();
  }
  return schema;
}

describe('isPlainSchema: which schemas may skip the meta-schema check', () => {
  it('accepts the schemas tools typically declare', () => {
    assert.equal(isPlainSchema(CODE_EXECUTION_LIKE), true);
    assert.equal(isPlainSchema({ type: 'object', properties: { i: { type: 'integer' } } }), true);
    assert.equal(isPlainSchema({ type: 'object' }), true);
    assert.equal(isPlainSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }), true);
  });

  it('leaves anything it does not know for certain to the full check', () => {
    for (const schema of [
      { properties: { d: { type: 'date' } } },
      { minimum: 1, exclusiveMinimum: true },
      { type: 'string', pattern: '(' },
      { properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' } } },
      { type: [] },
      { type: ['string', 'string'] },
      { required: ['a', 'a'] },
      { multipleOf: 0 },
      { minLength: -1 },
      { items: [{ type: 'string' }] },
      { anyOf: [] },
      { 'x-vendor': 1 },
      { $schema: 'https://example.com/schema' },
    ]) {
      assert.equal(isPlainSchema(schema), false, JSON.stringify(schema));
    }
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    assert.equal(isPlainSchema(cyclic), false);
  });

  it('never accepts a schema that one of the three meta-schemas rejects (2,000 random schemas)', () => {
    const next = rng(22);
    let accepted = 0;
    for (let i = 0; i < 2_000; i++) {
      const schema = randomSchema(next);
      if (!isPlainSchema(schema)) continue;
      accepted++;
      assert.equal(metaValid(schema), true, JSON.stringify(schema));
    }
    // The generator must exercise the accepting side too, or the property says nothing.
    assert.ok(accepted > 200, `only ${accepted} schemas accepted`);
  });

  it('spares compiling a plain schema the meta-schema check, and still checks any other', () => {
    const core = Object.getPrototypeOf(Ajv.prototype) as { validateSchema: (...args: unknown[]) => unknown };
    const original = core.validateSchema;
    let checks = 0;
    core.validateSchema = function (this: unknown, ...args: unknown[]) {
      checks++;
      return original.apply(this, args);
    };
    try {
      const plain = compileValidator(structuredClone(CODE_EXECUTION_LIKE) as JsonSchema);
      assert.equal(checks, 0);
      assert.equal(plain.enforced, true);
      assert.deepEqual(plain.validate({ code: 1, extra: true }).ok, false);
      const invalid = compileValidator({ properties: { d: { type: 'date' } } } as JsonSchema);
      assert.ok(checks > 0);
      assert.equal(invalid.enforced, false);
      assert.match(invalid.problems.join(), /schema is invalid: data\/properties\/d\/type/);
    } finally {
      core.validateSchema = original;
    }
  });
});
