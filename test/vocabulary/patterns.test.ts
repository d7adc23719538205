import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePattern, matchesAny } from '../../src/vocabulary/patterns.ts';

describe('RFC-007 §6.2 patterns', () => {
  const cases: [pattern: string, text: string, expected: boolean][] = [
    ['x--run', 'x--run', true],
    ['x--run', 'x--runs', false],
    ['x--run', 'X--run', false], // case-sensitive
    ['', '', true],
    ['', 'a', false],
    ['*', '', true],
    ['*', 'anything at all', true],
    ['**', 'abc', true],
    ['x--*', 'x--run', true],
    ['x--*', 'x--', true],
    ['x--*', 'y--run', false],
    ['*--run', 'computer--run', true],
    ['*--run', 'computer--runner', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'acb', false],
    ['a*a', 'a', false], // prefix and suffix may not overlap
    ['a*a', 'aa', true],
    ['ab*ba', 'aba', false],
    ['*ab*ab*', 'xabyab', true],
    ['*ab*ab*', 'xaby', false],
    ['a?[]\\', 'a?[]\\', true], // no other metacharacters
    ['a?[]\\', 'ab[]\\', false],
    ['.*', 'x', false], // not a regular expression
    ['.*', '.anything', true],
    ['🙂*', '🙂🙂', true],
  ];
  for (const [pattern, text, expected] of cases) {
    it(`${JSON.stringify(pattern)} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(text)}`, () => {
      assert.equal(compilePattern(pattern).matches(text), expected);
    });
  }

  it('keeps the source and matches whole strings only', () => {
    const p = compilePattern('conv_*');
    assert.equal(p.source, 'conv_*');
    assert.equal(p.matches('conv_1'), true);
    assert.equal(p.matches('xconv_1'), false);
  });

  it('matchesAny: an empty list matches nothing', () => {
    assert.equal(matchesAny([], 'x'), false);
    assert.equal(matchesAny([compilePattern('y'), compilePattern('x*')], 'xx'), true);
  });

  it('a pathological pattern against a long string stays linear-ish (no backtracking blowup)', () => {
    const pattern = compilePattern('*a*a*a*a*a*a*b');
    const text = 'a'.repeat(200_000);
    const started = process.hrtime.bigint();
    for (let i = 0; i < 20; i++) assert.equal(pattern.matches(text), false);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // Exponential backtracking would take astronomically long; a bound of seconds catches it.
    assert.ok(ms < 2000, `20 matches took ${ms.toFixed(1)} ms`);
    assert.equal(pattern.matches(text + 'b'), true);
  });
});
