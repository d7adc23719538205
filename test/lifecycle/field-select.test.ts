import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { selectFields } from '../../src/lifecycle/field-select.ts';

describe('RFC-007 §6.3 field paths', () => {
  it('selects top-level members', () => {
    assert.deepEqual(selectFields({ a: 1, b: 2 }, ['a']), { a: 1 });
  });

  it('descends into nested objects keeping structure (vector 33)', () => {
    assert.deepEqual(selectFields({ target: { window_id: 3, kind: 'w' }, x: 1 }, ['target.window_id']), {
      target: { window_id: 3 },
    });
  });

  it('a missing path selects nothing: {} (vector 34)', () => {
    assert.deepEqual(selectFields({ a: 1 }, ['z']), {});
    assert.deepEqual(selectFields({ a: 1 }, []), {});
    assert.deepEqual(selectFields({ target: { kind: 'w' } }, ['target.window_id']), {});
  });

  it('a path ending on an object or array selects it whole', () => {
    const input = { target: { window_id: 3, deep: { k: [1, 2] } }, list: [1, { a: 2 }] };
    assert.deepEqual(selectFields(input, ['target', 'list']), input);
  });

  it('passing through a non-object selects nothing; arrays are not descended into', () => {
    assert.deepEqual(selectFields({ a: 1, s: 'str', n: null, list: [{ x: 1 }] }, ['a.b', 's.length', 'n.x', 'list.0', 'list.x']), {});
  });

  it('keeps the input key order whatever the path order', () => {
    const out = selectFields({ x: 1, y: 2, z: 3 }, ['z', 'x']);
    assert.deepEqual(Object.keys(out), ['x', 'z']);
    const nested = selectFields({ t: { a: 1, b: 2, c: 3 } }, ['t.c', 't.a']);
    assert.deepEqual(Object.keys(nested.t as object), ['a', 'c']);
  });

  it('a whole member absorbs deeper paths into it, in either order', () => {
    const input = { t: { a: 1, b: 2 } };
    assert.deepEqual(selectFields(input, ['t.a', 't']), input);
    assert.deepEqual(selectFields(input, ['t', 't.a']), input);
  });

  it('only own members count; a __proto__ member from JSON stays a plain member', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const out = selectFields(input, ['__proto__', 'toString', 'constructor']);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.equal(JSON.stringify(out), '{"__proto__":{"polluted":true}}');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('member names containing "." cannot be selected by path', () => {
    assert.deepEqual(selectFields({ 'a.b': 1, a: { b: 2 } }, ['a.b']), { a: { b: 2 } });
  });

  it('does not modify the input', () => {
    const input = { a: { b: 1, c: 2 } };
    selectFields(input, ['a.b']);
    assert.deepEqual(input, { a: { b: 1, c: 2 } });
  });
});
