/** The maxDepth scan over JSON text (sandbox/json-depth.mjs), shared by the host and the V8 child. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonDeeperThan } from '../../../src/runtime/js/sandbox/json-depth.mjs';

const nest = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);

test('counts array and object nesting, at the limit and one past it', () => {
  assert.equal(jsonDeeperThan(nest(256), 256), false);
  assert.equal(jsonDeeperThan(nest(257), 256), true);
  assert.equal(jsonDeeperThan(JSON.stringify({ a: { b: { c: [1] } } }), 3), true);
  assert.equal(jsonDeeperThan(JSON.stringify({ a: { b: { c: [1] } } }), 4), false);
});

test('brackets inside strings, escaped quotes and backslashes do not count', () => {
  const text = JSON.stringify({ s: '[[[[{{{{"\\'.repeat(200), t: ['\\"[', ']]]]'] });
  assert.equal(jsonDeeperThan(text, 2), false);
  assert.equal(jsonDeeperThan(JSON.stringify(['\\', [[['x']]]]), 3), true);
});

test('siblings do not add up; the shortest text past the limit is caught', () => {
  assert.equal(jsonDeeperThan(JSON.stringify(Array.from({ length: 1000 }, () => [[1]])), 3), false);
  assert.equal(jsonDeeperThan('[[[]]]', 2), true); // 2·2+2 characters: the shortest text three deep
  assert.equal(jsonDeeperThan('[[]]', 2), false);
});
