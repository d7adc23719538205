import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shrinkToBytes } from '../../src/lifecycle/json-shrink.ts';

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

describe('shrinkToBytes', () => {
  it('returns the input itself when it already fits', () => {
    const input = { a: [1, { b: 'c' }], d: null };
    assert.equal(shrinkToBytes(input, 1000), input);
  });

  it('follows JSON.stringify semantics: toJSON, omitted members, non-finite numbers', () => {
    const when = new Date(0);
    const input = { when, skip: undefined, fn: () => 1, nan: Number.NaN, list: [undefined, 1], text: 'y'.repeat(200) };
    const out = shrinkToBytes(input as Record<string, unknown>, 100)!;
    assert.ok(bytes(out) <= 100, `${bytes(out)}`);
    assert.equal(out.when, when.toJSON());
    assert.equal('skip' in out, false);
    assert.equal(out.nan, null);
    assert.deepEqual(out.list, [null, 1]);
    assert.ok(typeof out.text === 'string' && (out.text as string).length > 10);
  });

  it('shares members that fit whole with the input', () => {
    const keep = { id: 1 };
    const out = shrinkToBytes({ keep, big: 'x'.repeat(500) }, 60)!;
    assert.equal(out.keep, keep);
  });

  it('fills the budget exactly when a long string can be cut to it', () => {
    for (const max of [20, 33, 100, 4096]) {
      const out = shrinkToBytes({ data: 'x'.repeat(10_000) }, max)!;
      assert.equal(bytes(out), max);
    }
  });

  it('drops emptied containers and over-deep nesting', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200; i++) deep = { d: deep };
    const out = shrinkToBytes({ deep, ok: 1, pad: 'p'.repeat(5000) }, 50)!;
    assert.equal('deep' in out, false);
    assert.equal(out.ok, 1);
  });

  it('undefined when no member fits', () => {
    assert.equal(shrinkToBytes({ n: 123456 }, 6), undefined);
    assert.equal(shrinkToBytes({ a: { b: 1 } }, 7), undefined);
  });
});
