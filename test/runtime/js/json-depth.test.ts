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

test('agrees with the depth of the parsed value on random JSON full of quotes, backslashes and brackets', () => {
  // A small deterministic generator (no Math.random: a failure must reproduce).
  let seed = 46;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const pieces = ['"', '\\', '[', ']', '{', '}', 'a', '\\"', '\\\\', ' '];
  const text = () => Array.from({ length: next(8) }, () => pieces[next(pieces.length)]).join('');
  const value = (depth: number): unknown => {
    const k = depth > 6 ? next(2) : next(4);
    if (k === 0) return text();
    if (k === 1) return next(100);
    if (k === 2) return Array.from({ length: next(4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: next(4) }, () => [text(), value(depth + 1)]));
  };
  const depthOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
  for (let i = 0; i < 2000; i++) {
    const v = value(0);
    const json = JSON.stringify(v);
    const d = depthOf(v);
    for (const max of [d - 1, d, d + 1]) if (max >= 0) assert.equal(jsonDeeperThan(json, max), d > max, `${json} at ${max}`);
  }
});
