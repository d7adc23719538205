import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateFeatureSets } from '../../src/mcpl/policy.ts';

describe('feature sets (SPEC §6.2, §6.4)', () => {
  it('valid uses are enabled, including the RFC-007 leaves', () => {
    const v = validateFeatureSets({
      'body.activity': { description: 'Act out tool use', uses: ['toolLifecycle.observe', 'toolLifecycle.inputs'] },
      'memory.retrieval': { description: 'r', uses: ['contextHooks.beforeInference.observe', 'tools'] },
    });
    assert.deepEqual(v, { enabled: ['body.activity', 'memory.retrieval'], disabled: [], notes: [] });
  });

  it('toolLifecycle.results is an unknown leaf: invalid_uses (vector 11)', () => {
    const v = validateFeatureSets({ bad: { description: 'Unknown leaf', uses: ['toolLifecycle.results'] } });
    assert.deepEqual(v.disabled, [{ name: 'bad', reason: 'invalid_uses', invalid: ['toolLifecycle.results'] }]);
    assert.deepEqual(v.enabled, []);
  });

  it('absent, empty or non-array uses is invalid', () => {
    const v = validateFeatureSets({ a: { description: 'x' }, b: { description: 'x', uses: [] }, c: { description: 'x', uses: 'tools' }, d: 'junk' });
    assert.deepEqual(v.disabled.map((d) => [d.name, d.reason, d.invalid]), [
      ['a', 'invalid_uses', []],
      ['b', 'invalid_uses', []],
      ['c', 'invalid_uses', []],
      ['d', 'invalid_uses', []],
    ]);
  });

  it('one unknown entry invalidates the whole set; parents and wildcards are not paths', () => {
    const v = validateFeatureSets({
      mixed: { description: 'x', uses: ['tools', 'toolLifecycle', 'toolLifecycle.*', 7] },
    });
    assert.deepEqual(v.disabled, [{ name: 'mixed', reason: 'invalid_uses', invalid: ['toolLifecycle', 'toolLifecycle.*', '7'] }]);
  });

  it('a custom vocabulary can be supplied', () => {
    assert.deepEqual(validateFeatureSets({ f: { description: 'x', uses: ['a.b'] } }, ['a.b']).enabled, ['f']);
  });

  it('with a grant, sets needing an ungranted path are disabled as capability_denied', () => {
    const v = validateFeatureSets(
      { watch: { description: 'w', uses: ['toolLifecycle.observe'] }, args: { description: 'a', uses: ['toolLifecycle.observe', 'toolLifecycle.inputs'] } },
      undefined,
      new Set(['tools', 'toolLifecycle.observe']),
    );
    assert.deepEqual(v.enabled, ['watch']);
    assert.deepEqual(v.disabled, [{ name: 'args', reason: 'capability_denied', invalid: [], missing: ['toolLifecycle.inputs'] }]);
  });

  it('no feature sets, or a malformed member, disables nothing and notes it', () => {
    assert.deepEqual(validateFeatureSets(undefined), { enabled: [], disabled: [], notes: [] });
    const junk = validateFeatureSets(['x']);
    assert.deepEqual([junk.enabled, junk.disabled], [[], []]);
    assert.match(junk.notes[0]!, /not an object/);
    assert.match(validateFeatureSets({ f: { uses: ['tools'] } }).notes[0]!, /no description/);
  });
});
