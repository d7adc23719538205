import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDACTED } from '../../src/lifecycle/credentials.ts';
import { boundInput, DEFAULT_INPUT_BOUND_BYTES } from '../../src/lifecycle/input-bound.ts';
import { objectOfUtf8Bytes } from './conformance-data.ts';

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

function bounded(input: unknown, maxBytes?: number, redactCredentials?: boolean) {
  const r = boundInput(input, { maxBytes, redactCredentials });
  if (!r.ok) throw new Error(`withheld: ${r.reason}`);
  return r;
}

describe('boundInput: under the bound', () => {
  it('returns the same object, unaltered', () => {
    const input = { a: 1, nested: { b: [1, 2, 'x'] } };
    const r = bounded(input);
    assert.equal(r.input, input);
    assert.equal(r.altered, false);
  });

  it('an input of exactly the bound is not altered', () => {
    const input = objectOfUtf8Bytes(DEFAULT_INPUT_BOUND_BYTES);
    assert.equal(bytes(input), DEFAULT_INPUT_BOUND_BYTES);
    const r = bounded(input);
    assert.equal(r.altered, false);
    assert.equal(r.input, input);
  });

  it('measures UTF-8 bytes, not UTF-16 units', () => {
    const input = { s: 'é'.repeat(10) }; // 18 units serialized, 28 bytes
    assert.equal(bytes(input), 28);
    assert.equal(bounded(input, 28).altered, false);
    const cut = bounded(input, 27);
    assert.equal(cut.altered, true);
    assert.deepEqual(cut.input, { s: 'é'.repeat(9) });
  });
});

describe('boundInput: over the bound', () => {
  it('the 200 KiB object-utf8-bytes fixture comes out within 16 KiB, an object, altered (vector 25)', () => {
    const input = objectOfUtf8Bytes(204800);
    assert.equal(bytes(input), 204800);
    const r = bounded(input);
    assert.equal(r.altered, true);
    assert.ok(bytes(r.input) <= DEFAULT_INPUT_BOUND_BYTES, `${bytes(r.input)} bytes`);
    assert.ok(bytes(r.input) > DEFAULT_INPUT_BOUND_BYTES - 16, 'uses the room it has');
    assert.ok(typeof r.input.data === 'string' && input.data.startsWith(r.input.data as string), 'a prefix of the original');
  });

  it('respects a configured bound', () => {
    const r = bounded(objectOfUtf8Bytes(5000), 100);
    assert.ok(bytes(r.input) <= 100);
    assert.equal(bytes(r.input), 100);
  });

  it('never splits a code point or an escape', () => {
    for (let max = 8; max < 40; max++) {
      const r = bounded({ s: '🙂"\\\n\u0001é🙂x'.repeat(4) }, max);
      assert.ok(bytes(r.input) <= max, `max ${max}`);
      const s = r.input.s as string;
      assert.equal(s.isWellFormed(), true, `max ${max}: ${JSON.stringify(s)}`);
      assert.ok('🙂"\\\n\u0001é🙂x'.repeat(4).startsWith(s));
    }
  });

  it('lone surrogates are costed as their escaped form', () => {
    const r = bounded({ s: '\ud800'.repeat(50) }, 40);
    assert.ok(bytes(r.input) <= 40);
  });

  it('drops members that cannot fit and keeps later ones that can', () => {
    const input = { big: 7, small: 'ok', huge: { a: 'x'.repeat(500) }, tail: 1 };
    const r = bounded({ ...input, big: 1234567890123 }, 45);
    assert.equal(r.altered, true);
    assert.ok(bytes(r.input) <= 45);
    assert.deepEqual(r.input, { big: 1234567890123, small: 'ok', tail: 1 }, 'an emptied object is dropped, not kept as {}');
  });

  it('keeps a prefix of arrays, cutting the element that straddles the bound', () => {
    const r = bounded({ list: ['aaaa', 'bbbb', 'cccc', 'dddd'] }, 25);
    assert.ok(bytes(r.input) <= 25);
    const list = r.input.list as string[];
    assert.deepEqual(list.slice(0, 2), ['aaaa', 'bbbb']);
    assert.ok(list.length <= 3);
  });

  it('reshapes nested structures in order', () => {
    const input = { meta: { id: 1 }, body: { text: 'y'.repeat(1000), more: [1, 2, 3] } };
    const r = bounded(input, 200);
    assert.ok(bytes(r.input) <= 200);
    assert.deepEqual(r.input.meta, { id: 1 });
    assert.ok(((r.input.body as { text: string }).text).length > 100);
    assert.deepEqual(input.body.more, [1, 2, 3], 'the original is untouched');
    assert.equal(input.body.text.length, 1000);
  });
});

describe('boundInput: withheld', () => {
  it('when the input is not a JSON object', () => {
    for (const v of [null, [1], 'x', 3, undefined, true]) {
      const r = boundInput(v);
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.reason : '', /not a JSON object/);
    }
  });

  it('when the input cannot be serialized', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const r = boundInput(cyclic);
    assert.match(!r.ok ? r.reason : '', /cannot be serialized/);
    assert.equal(boundInput({ n: 1n }).ok, false);
  });

  it('when nothing meaningful fits', () => {
    const r = boundInput({ only: 12345678901234567890 }, { maxBytes: 10 });
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.reason : '', /cannot be bounded/);
    assert.equal(boundInput({ a: 1 }, { maxBytes: 1 }).ok, false);
  });
});

describe('boundInput: credential redaction', () => {
  it('replaces credential values with a placeholder, anywhere, and marks altered', () => {
    const input = { url: 'https://x', headers: { Authorization: 'Bearer abc' }, items: [{ token: 't1', n: 1 }], password: 1234, author: 'me' };
    const r = bounded(input);
    assert.equal(r.altered, true);
    assert.deepEqual(r.input, { url: 'https://x', headers: { Authorization: REDACTED }, items: [{ token: REDACTED, n: 1 }], password: REDACTED, author: 'me' });
    assert.equal(input.headers.Authorization, 'Bearer abc', 'the original is untouched');
  });

  it('leaves null and boolean credential members alone (they hold no secret)', () => {
    const input = { token: null, secret: false, author: 'someone with a password' };
    const r = bounded(input);
    assert.equal(r.altered, false);
    assert.deepEqual(r.input, input);
  });

  it('can be turned off', () => {
    const input = { password: 'hunter2' };
    const r = bounded(input, undefined, false);
    assert.equal(r.altered, false);
    assert.equal(r.input, input);
  });

  it('redaction and bounding combine', () => {
    const r = bounded({ token: 'x'.repeat(100), body: 'y'.repeat(100) }, 60);
    assert.equal(r.input.token, REDACTED);
    assert.ok(bytes(r.input) <= 60);
  });
});
