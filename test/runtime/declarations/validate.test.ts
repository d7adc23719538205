import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileValidator, validateArguments, type JsonSchema } from '../../../src/runtime/declarations/index.ts';

const ok = (schema: JsonSchema | undefined, value: unknown) => assert.deepEqual(validateArguments(schema, value), { ok: true }, JSON.stringify(value));
const errors = (schema: JsonSchema | undefined, value: unknown, expected: string[]) =>
  assert.deepEqual(validateArguments(schema, value), { ok: false, errors: expected });

describe('validateArguments: types', () => {
  it('checks each JSON type, with integer distinct from number', () => {
    const cases: Array<[string, unknown, string]> = [
      ['string', 1, 'number'],
      ['number', '1', 'string'],
      ['integer', 1.5, 'number'],
      ['integer', '1', 'string'],
      ['boolean', 0, 'number'],
      ['null', undefined, 'undefined'],
      ['array', {}, 'object'],
      ['object', [], 'array'],
      ['object', null, 'null'],
      ['number', Number.NaN, 'NaN'],
    ];
    for (const [type, value, got] of cases) errors({ type }, value, [`args: expected ${type}, got ${got}`]);
    for (const [type, value] of [['string', ''], ['number', 1.5], ['number', 2], ['integer', 3], ['integer', -0], ['boolean', false], ['null', null], ['array', []], ['object', {}]] as const) {
      ok({ type }, value);
    }
  });

  it('accepts any of several types', () => {
    const schema = { type: ['string', 'null'] };
    ok(schema, null);
    ok(schema, 'x');
    errors(schema, 3, ['args: expected string or null, got number']);
  });

  it('treats OpenAPI nullable as also allowing null', () => {
    const schema = { type: 'string', nullable: true, minLength: 2 };
    ok(schema, null);
    errors(schema, 'a', ['args: expected at least 2 characters, got 1']);
    errors(schema, 3, ['args: expected string or null, got number']);
  });

  it('handles boolean and missing schemas', () => {
    ok(undefined, { anything: 1 });
    ok(true, 5);
    errors(false, 5, ['args: no value is allowed here']);
  });
});

describe('validateArguments: objects', () => {
  const schema = {
    type: 'object',
    properties: {
      a: { type: 'integer' },
      nested: { type: 'object', properties: { list: { type: 'array', items: { type: 'object', properties: { c: { type: 'string' } } } } } },
      'x-y': { type: 'boolean' },
    },
    required: ['a'],
  };

  it('reports the path of each bad value', () => {
    errors(schema, { a: 'x', nested: { list: [{ c: 'ok' }, { c: 1 }] }, 'x-y': 'no' }, [
      'args.a: expected integer, got string',
      'args.nested.list[1].c: expected string, got number',
      'args["x-y"]: expected boolean, got string',
    ]);
  });

  it('reports missing required properties and allows extra ones by default', () => {
    errors(schema, {}, ['args.a: required property is missing']);
    ok(schema, { a: 1, extra: true });
  });

  it('rejects unexpected properties when additionalProperties is false, listing the allowed ones', () => {
    const closed = { type: 'object', properties: { a: {}, b: {} }, additionalProperties: false };
    errors(closed, { a: 1, c: 2 }, ['args.c: unexpected property (allowed: a, b)']);
    errors({ type: 'object', additionalProperties: false }, { c: 2 }, ['args.c: unexpected property (no properties are allowed)']);
  });

  it('validates extra properties against an additionalProperties schema', () => {
    const map = { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: { type: 'number' } };
    ok(map, { id: 'x', n: 1, m: 2.5 });
    errors(map, { id: 'x', n: 'one' }, ['args.n: expected number, got string']);
  });

  it('validates patternProperties and leaves keys they match out of additionalProperties', () => {
    const s = { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false, properties: { id: {} } };
    ok(s, { id: 1, 'x-a': 'y' });
    errors(s, { 'x-a': 1 }, ['args["x-a"]: expected string, got number']);
    errors(s, { other: 1 }, ['args.other: unexpected property (allowed: id, or keys matching /^x-/)']);
  });

  it('does not treat inherited keys as present', () => {
    errors({ type: 'object', required: ['toString'] }, {}, ['args.toString: required property is missing']);
  });
});

describe('validateArguments: arrays', () => {
  it('validates every item against items', () => {
    const s = { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 };
    ok(s, [1, 2]);
    errors(s, [], ['args: expected at least 1 item, got 0']);
    errors(s, [1, 2, 3, 4], ['args: expected at most 3 items, got 4']);
    errors(s, [1, 'b', 3.5], ['args[1]: expected integer, got string', 'args[2]: expected integer, got number']);
  });

  it('validates tuples from prefixItems with items for the rest', () => {
    const closed = { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }], items: false };
    ok(closed, [1, 'a']);
    ok(closed, [1]);
    errors(closed, [1, 'a', true], ['args: expected at most 2 items, got 3']);
    errors(closed, ['a', 1], ['args[0]: expected number, got string', 'args[1]: expected string, got number']);
    const open = { type: 'array', prefixItems: [{ type: 'number' }], items: { type: 'boolean' } };
    ok(open, [1, true, false]);
    errors(open, [1, true, 'no'], ['args[2]: expected boolean, got string']);
  });

  it('validates legacy array-form items with additionalItems', () => {
    const s = { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false };
    ok(s, ['a', 1]);
    errors(s, ['a', 1, 2], ['args: expected at most 2 items, got 3']);
    const rest = { items: [{ type: 'string' }], additionalItems: { type: 'null' } };
    errors(rest, ['a', null, 0], ['args[2]: expected null, got number']);
    ok({ items: [{ type: 'string' }] }, ['a', 1, {}]);
  });
});

describe('validateArguments: values', () => {
  it('checks enum and const by deep equality', () => {
    errors({ enum: ['a', 'b'] }, 'c', ['args: expected one of "a", "b", got "c"']);
    ok({ enum: ['a', { k: [1, 2], j: null }] }, { j: null, k: [1, 2] });
    errors({ enum: [{ k: 1 }] }, { k: 2 }, ['args: expected {"k":1}, got {"k":2}']);
    errors({ const: 'v' }, 'w', ['args: expected "v", got "w"']);
    ok({ const: [1, { a: true }] }, [1, { a: true }]);
    errors({ const: 1 }, '1', ['args: expected 1, got "1"']);
    const many = Array.from({ length: 12 }, (_, i) => i);
    errors({ enum: many }, 99, ['args: expected one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, …, got 99']);
  });

  it('checks numeric bounds and multipleOf', () => {
    errors({ minimum: 1 }, 0, ['args: expected a number >= 1, got 0']);
    errors({ maximum: 1 }, 2, ['args: expected a number <= 1, got 2']);
    errors({ exclusiveMinimum: 1 }, 1, ['args: expected a number > 1, got 1']);
    errors({ exclusiveMaximum: 1 }, 1, ['args: expected a number < 1, got 1']);
    ok({ minimum: 1, maximum: 1 }, 1);
    ok({ minimum: 1 }, 'not a number');
    errors({ multipleOf: 5 }, 7, ['args: expected a multiple of 5, got 7']);
    ok({ multipleOf: 0.1 }, 0.3);
  });

  it('counts string length in code points', () => {
    const s = { type: 'string', minLength: 2, maxLength: 3 };
    ok(s, '😀😀');
    errors(s, '😀', ['args: expected at least 2 characters, got 1']);
    errors(s, 'abcd', ['args: expected at most 3 characters, got 4']);
  });

  it('matches patterns unanchored, in unicode mode', () => {
    const s = { type: 'string', pattern: '^\\p{Lu}' };
    ok(s, 'Émile');
    errors(s, 'émile', ['args: expected a string matching /^\\p{Lu}/, got "émile"']);
    ok({ pattern: 'b' }, 'abc');
  });

  it('checks formats, and uniqueItems', () => {
    errors({ type: 'string', format: 'email' }, 'not an email', ['args: expected format "email", got "not an email"']);
    ok({ type: 'string', format: 'email' }, 'a@example.org');
    errors({ format: 'date-time' }, '2026-13-01', ['args: expected format "date-time", got "2026-13-01"']);
    ok({ format: 'uuid' }, '0b6c7f7e-4a3e-4c0e-9a57-1f1b2b8c9d10');
    errors({ type: 'array', uniqueItems: true }, [1, 2, 1], ['args: expected unique items, but items 0 and 2 are equal']);
  });

  it('ignores keywords and formats it does not know, and says so once', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', format: 'shoe-size', 'x-custom': 1 } }, required: ['a'] };
    const told: Array<readonly string[]> = [];
    const v = compileValidator(schema, (problems) => told.push(problems));
    compileValidator(schema, (problems) => told.push(problems));
    assert.equal(told.length, 1);
    assert.ok(told[0]!.includes('unknown format "shoe-size" is not checked'), told[0]!.join('\n'));
    assert.ok(told[0]!.some((p) => /unknown keyword.*x-custom/.test(p)), told[0]!.join('\n'));
    assert.equal(v.enforced, true);
    assert.deepEqual(v.validate({ a: 'forty-two' }), { ok: true });
    assert.deepEqual(v.validate({ a: 42 }), { ok: false, errors: ['args.a: expected string, got number'] });
  });
});

describe('validateArguments: combinators', () => {
  it('anyOf names the expected types when no branch fits the value', () => {
    const s = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
    ok(s, 'a');
    ok(s, 2);
    errors(s, true, ['args: expected string or integer, got boolean']);
    errors({ anyOf: [{ const: 'a' }, { const: 'b' }] }, 'c', ['args: expected "a" or "b", got "c"']);
    const refs = { anyOf: [{ $ref: '#/$defs/S' }, { $ref: '#/$defs/I' }], $defs: { S: { type: 'string' }, I: { type: 'integer' } } };
    ok(refs, 3);
    errors(refs, true, ['args: expected string or integer, got boolean']);
  });

  it('anyOf reports the branch the value was meant for', () => {
    const s = {
      anyOf: [
        { type: 'string' },
        { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      ],
    };
    errors({ type: 'object', properties: { v: s } }, { v: { n: 'x' } }, ['args.v.n: expected integer, got string']);
  });

  it('oneOf requires exactly one match', () => {
    const s = { oneOf: [{ type: 'number' }, { type: 'integer' }] };
    ok(s, 1.5);
    errors(s, 1, ['args: matches 2 of the oneOf alternatives; expected exactly one']);
    errors(s, 'x', ['args: expected number or integer, got string']);
  });

  it('looks through a branch that is itself a choice to find the branch meant', () => {
    const s = { oneOf: [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }] };
    errors(s, { q: 1 }, ['args.q: expected string, got number']);
    errors(s, true, ['args: expected string or integer or object, got boolean']);
  });

  it('reports contains once, without the items that were allowed not to match', () => {
    errors({ type: 'array', contains: { type: 'string' } }, [1, 2], ['args: expected at least 1 item matching "contains", got [1,2]']);
    ok({ type: 'array', contains: { type: 'string' } }, [1, 'a']);
  });

  it('allOf applies every part', () => {
    const s = { allOf: [{ type: 'object', required: ['a'] }, { required: ['b'] }] };
    errors(s, {}, ['args.a: required property is missing', 'args.b: required property is missing']);
    ok(s, { a: 1, b: 2 });
  });

  it('applies keywords next to a combinator as well', () => {
    const s = { type: 'object', properties: { id: { type: 'string' } }, anyOf: [{ required: ['id'] }, { required: ['name'] }] };
    ok(s, { name: 'x' });
    errors(s, { id: 3 }, ['args.id: expected string, got number']);
  });
});

describe('validateArguments: references', () => {
  const tree = {
    $ref: '#/$defs/Node',
    $defs: {
      Node: { type: 'object', properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }, required: ['value'] },
    },
  };

  it('follows local $refs, recursively', () => {
    ok(tree, { value: 1, children: [{ value: 2, children: [{ value: 3 }] }] });
    errors(tree, { value: 1, children: [{ value: 2, children: [{ value: 'x' }] }] }, ['args.children[0].children[0].value: expected number, got string']);
    ok({ properties: { p: { $ref: '#/definitions/P' } }, definitions: { P: { type: 'string' } } }, { p: 'x' });
    errors({ properties: { p: { $ref: '#/definitions/a~1b' } }, definitions: { 'a/b': { type: 'string' } } }, { p: 1 }, ['args.p: expected string, got number']);
  });

  it('applies keywords next to a $ref too', () => {
    const s = { $ref: '#/$defs/S', maxLength: 2, $defs: { S: { type: 'string' } } };
    errors(s, 'abc', ['args: expected at most 2 characters, got 3']);
    errors(s, 1, ['args: expected string, got number']);
  });

  it('does not enforce a schema it cannot compile, and names the problem', () => {
    const cases: Array<[string, object, RegExp]> = [
      ['a missing local $ref', { properties: { a: { $ref: '#/$defs/Missing' } } }, /can't resolve reference #\/\$defs\/Missing/],
      ['a remote $ref', { properties: { b: { $ref: 'https://example.com/x.json' } } }, /can't resolve reference https:\/\/example\.com\/x\.json/],
      ['an invalid pattern', { properties: { c: { type: 'string', pattern: '(' } } }, /Invalid regular expression/],
      ['an unknown type', { properties: { d: { type: 'date' } } }, /schema is invalid: data\/properties\/d\/type/],
      ['a draft-04 boolean bound', { minimum: 1, exclusiveMinimum: true }, /exclusiveMinimum must be number/],
      ['a reference loop that consumes nothing', { $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } } }, /./],
    ];
    for (const [what, schema, reason] of cases) {
      const told: string[] = [];
      const v = compileValidator(schema as JsonSchema, (problems) => told.push(...problems));
      assert.equal(v.enforced, false, what);
      assert.equal(told.length, 1, what);
      assert.match(told[0]!, /^the input schema could not be compiled \(.+\); arguments are not validated$/, what);
      assert.match(told[0]!, reason, what);
      assert.deepEqual(v.validate({ a: 1, b: 2, c: 'x', d: 3 }), { ok: true }, what);
      assert.deepEqual(v.validate(1), { ok: true }, what);
    }
  });
});

describe('validateArguments: compiled once, bounded output', () => {
  it('caches the compiled validator per schema object', () => {
    const s = { type: 'object', properties: { a: { type: 'string' } } };
    assert.equal(compileValidator(s), compileValidator(s));
    assert.notEqual(compileValidator(s), compileValidator({ ...s }));
  });

  it('uses the given root name in paths', () => {
    assert.deepEqual(validateArguments({ type: 'object', properties: { a: { type: 'string' } } }, { a: 1 }, 'input'), {
      ok: false,
      errors: ['input.a: expected string, got number'],
    });
  });

  it('lists at most 20 errors and says more were left out', () => {
    const result = validateArguments({ type: 'array', items: { type: 'string' } }, Array.from({ length: 50 }, (_, i) => i));
    assert.equal(result.ok, false);
    const list = (result as { errors: string[] }).errors;
    assert.equal(list.length, 21);
    assert.equal(list[19], 'args[19]: expected string, got number');
    assert.equal(list[20], '(further errors after the first 20 are not shown)');
  });

  it('gives the same answer on repeated runs of one compiled validator', () => {
    const v = compileValidator({ type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } }, required: ['a'] });
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(v.validate({ a: null }), { ok: true });
      assert.deepEqual(v.validate({ a: 1 }), { ok: false, errors: ['args.a: expected string or null, got number'] });
    }
  });

  it('reports a schema that is not a schema as a problem and accepts', () => {
    const v = compileValidator(42 as unknown as JsonSchema);
    assert.deepEqual(v.problems, ['the input schema is number, not an object or boolean; arguments are not validated']);
    assert.equal(v.enforced, false);
    assert.deepEqual(v.validate('x'), { ok: true });
  });
});
