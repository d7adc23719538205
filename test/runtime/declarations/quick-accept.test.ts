/**
 * The quick acceptor (src/runtime/declarations/quick-accept.ts) must never accept what ajv,
 * configured as the host configures it, rejects; and every schema it takes must compile under
 * ajv without a problem to report (validate.ts reports none for them).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quickAcceptor } from '../../../src/runtime/declarations/quick-accept.ts';
import { compileSchema } from '../../../src/runtime/declarations/dialects.ts';
import { compileValidator, type JsonSchema } from '../../../src/runtime/declarations/index.ts';

const CODE_EXECUTION_LIKE = {
  type: 'object',
  properties: {
    code: { type: 'string', description: 'The script.' },
    language: { type: 'string', enum: ['javascript', 'python'] },
    time_limit_ms: { type: 'integer', minimum: 1000 },
    reset: { type: 'boolean' },
  },
  additionalProperties: false,
};

/** A small deterministic generator (no dependency on Math.random's sequence). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const pick = <T>(next: () => number, xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;

/** Schemas mostly of the keywords the acceptor checks, some of others. */
function randomSchema(next: () => number, depth = 0): Record<string, unknown> {
  const keys = [
    'type', 'type', 'enum', 'const', 'required', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength',
    'minItems', 'maxItems', 'minProperties', 'maxProperties', 'properties', 'properties', 'additionalProperties', 'items', 'anyOf', 'allOf',
    'description', 'default', 'format', 'pattern', 'multipleOf', 'not', 'nullable', 'uniqueItems',
  ];
  const sub = () => (depth < 3 && next() < 0.8 ? randomSchema(next, depth + 1) : pick(next, [true, false]));
  const schema: Record<string, unknown> = {};
  for (let n = Math.floor(next() * 4); n > 0; n--) {
    const key = pick(next, keys);
    if (key === 'type') schema[key] = pick(next, ['string', 'integer', 'number', 'object', 'array', 'boolean', 'null', ['integer', 'null'], ['string', 'object']]);
    else if (key === 'enum') schema[key] = pick(next, [['a', 'b'], [1, 2.5, null], [true, 'x', 0]]);
    else if (key === 'const') schema[key] = pick(next, ['a', 1, null, false, 0]);
    else if (key === 'required') schema[key] = pick(next, [['a'], ['a', 'b'], []]);
    else if (key.startsWith('min') || key.startsWith('max')) schema[key] = pick(next, [0, 1, 2, 3]);
    else if (key.startsWith('exclusive')) schema[key] = pick(next, [0, 1, -1.5]);
    else if (key === 'properties') schema[key] = { a: sub(), b: sub() };
    else if (key === 'additionalProperties' || key === 'items' || key === 'not') schema[key] = sub();
    else if (key === 'anyOf' || key === 'allOf') schema[key] = [sub(), sub()];
    else if (key === 'format') schema[key] = 'email';
    else if (key === 'pattern') schema[key] = '^a';
    else if (key === 'multipleOf') schema[key] = 2;
    else if (key === 'nullable' || key === 'uniqueItems') schema[key] = true;
    else schema[key] = 'x';
  }
  return schema;
}

function randomValue(next: () => number, depth = 0): unknown {
  const scalars = [0, 1, -1, 2, 3, 1.5, 1000, 'a', 'ab', 'abc', '', '\u{1F600}', '\u{1F600}\u{1F600}', true, false, null];
  const r = next();
  if (depth >= 3 || r < 0.55) return pick(next, scalars);
  if (r < 0.75) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const value: Record<string, unknown> = {};
  for (let n = Math.floor(next() * 4); n > 0; n--) value[pick(next, ['a', 'b', 'c'])] = randomValue(next, depth + 1);
  return value;
}

describe('quickAcceptor: certainly valid, or ask ajv', () => {
  it('takes the schemas tools typically declare and accepts their usual arguments', () => {
    const accept = quickAcceptor(CODE_EXECUTION_LIKE)!;
    assert.ok(accept, 'a code_execution-like schema is taken');
    assert.equal(accept({ code: 'return 1' }), true);
    assert.equal(accept({ code: 'return 1', language: 'python', time_limit_ms: 5000, reset: true }), true);
    assert.equal(quickAcceptor({ type: 'object', properties: { i: { type: 'integer' } } })!({ i: 3 }), true);
    assert.equal(quickAcceptor({ type: 'object' })!({}), true);
  });

  it('asks ajv about every value it cannot vouch for', () => {
    const accept = quickAcceptor(CODE_EXECUTION_LIKE)!;
    for (const value of [
      { code: 1 },
      { code: 'x', extra: true },
      { code: 'x', language: 'ruby' },
      { code: 'x', time_limit_ms: 999 },
      { code: 'x', time_limit_ms: 1000.5 },
      { code: 'x', time_limit_ms: Infinity },
      { code: 'x', reset: undefined },
      Object.defineProperty({ code: 'x' }, 'language', { value: 'ruby', enumerable: false }),
      new (class Args { code = 'x'; })(),
      null,
      [],
      'return 1',
    ]) {
      assert.equal(accept(value), false, String(JSON.stringify(value)));
    }
    // Lengths count code points, as ajv does: one emoji is one character.
    assert.equal(quickAcceptor({ type: 'string', minLength: 2 })!('\u{1F600}'), false);
    assert.equal(quickAcceptor({ type: 'string', maxLength: 1 })!('\u{1F600}'), true);
  });

  it('leaves schemas with keywords it does not check to ajv alone', () => {
    for (const schema of [
      { type: 'string', format: 'email' },
      { type: 'string', pattern: '^a' },
      { type: 'number', multipleOf: 2 },
      { type: 'string', nullable: true },
      { not: { type: 'string' } },
      { oneOf: [{ type: 'string' }, { type: 'integer' }] },
      { const: { a: 1 } },
      { properties: { a: { $schema: 'https://json-schema.org/draft/2020-12/schema' } } },
      { properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' } } },
      { 'x-vendor': 1 },
    ]) {
      assert.equal(quickAcceptor(schema), undefined, JSON.stringify(schema));
    }
  });

  it('never accepts what ajv rejects, and every schema it takes compiles with no problem (3,000 random schemas × 20 values)', () => {
    const next = rng(46);
    let taken = 0;
    let accepted = 0;
    for (let i = 0; i < 3_000; i++) {
      const schema = randomSchema(next);
      const accept = quickAcceptor(schema);
      if (accept === undefined) continue;
      taken++;
      const compiled = compileSchema(schema);
      assert.ok(compiled.ok, JSON.stringify(schema));
      assert.deepEqual(compiled.warnings, [], JSON.stringify(schema));
      for (let j = 0; j < 20; j++) {
        const value = randomValue(next);
        if (!accept(value)) continue;
        accepted++;
        assert.equal(compiled.validate(value), true, `${JSON.stringify(schema)} accepted ${JSON.stringify(value)}`);
      }
    }
    // Both sides exercised, or the property says nothing.
    assert.ok(taken > 1_000, `only ${taken} schemas taken`);
    assert.ok(accepted > 5_000, `only ${accepted} values accepted`);
  });

  it('the validator words an error as ajv always did once a value is not accepted', () => {
    const validator = compileValidator(structuredClone(CODE_EXECUTION_LIKE) as JsonSchema);
    assert.deepEqual(validator.validate({ code: 'return 1' }), { ok: true });
    assert.deepEqual(validator.validate({ code: 1 }), { ok: false, errors: ['args.code: expected string, got number'] });
    assert.equal(validator.enforced, true);
    assert.deepEqual(validator.problems, []);
  });
});
