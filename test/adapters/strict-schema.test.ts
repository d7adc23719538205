/** isStrictCompatible: which listed schemas strict function calling accepts unchanged. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStrictCompatible } from '../../src/adapters/strict-schema.ts';

test('closed objects with every property required are strict-compatible, nested ones too', () => {
  assert.equal(isStrictCompatible({ type: 'object', properties: {}, required: [], additionalProperties: false }), true);
  assert.equal(
    isStrictCompatible({
      type: 'object',
      properties: { a: { type: ['string', 'null'] }, b: { type: 'array', items: { type: 'object', properties: { c: { enum: [1, 2] } }, required: ['c'], additionalProperties: false } } },
      required: ['b', 'a'],
      additionalProperties: false,
    }),
    true,
  );
});

test('an optional property, an open object, an unsupported keyword or a non-object root is not', () => {
  assert.equal(isStrictCompatible({ type: 'object', properties: { a: { type: 'string' } }, required: [], additionalProperties: false }), false);
  assert.equal(isStrictCompatible({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }), false);
  assert.equal(isStrictCompatible({ type: 'object', properties: { a: { type: 'string', default: 'x' } }, required: ['a'], additionalProperties: false }), false);
  assert.equal(isStrictCompatible({ type: 'object', properties: { a: { type: 'object', properties: {}, required: [] } }, required: ['a'], additionalProperties: false }), false);
  assert.equal(isStrictCompatible({ type: 'object' }), false);
  assert.equal(isStrictCompatible({ anyOf: [{ type: 'object', properties: {}, required: [], additionalProperties: false }] }), false);
  assert.equal(isStrictCompatible(null), false);
});
