import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { advertisedPaths, entryGrants, grantedPaths, MCPL_CAPABILITY_PATHS, unmatchedEntries } from '../../src/mcpl/capabilities.ts';

describe('capability path grants (SPEC §5.4, RFC-002)', () => {
  it('deny by default: no entries, nothing granted', () => {
    assert.deepEqual([...grantedPaths([])], []);
  });

  it('an exact path grants only itself', () => {
    assert.deepEqual([...grantedPaths(['tools', 'toolLifecycle.observe'])], ['tools', 'toolLifecycle.observe']);
  });

  it('toolLifecycle.* grants both leaves', () => {
    assert.deepEqual([...grantedPaths(['toolLifecycle.*'])], ['toolLifecycle.observe', 'toolLifecycle.inputs']);
  });

  it('a bare parent grants nothing beneath it', () => {
    assert.deepEqual([...grantedPaths(['toolLifecycle'])], []);
    assert.deepEqual([...grantedPaths(['channels', 'contextHooks.beforeInference'])], []);
    assert.deepEqual(unmatchedEntries(['toolLifecycle', 'tools']), ['toolLifecycle']);
  });

  it('* stands for exactly one segment', () => {
    assert.deepEqual([...grantedPaths(['contextHooks.beforeInference.inject.*'])], [
      'contextHooks.beforeInference.inject.system',
      'contextHooks.beforeInference.inject.beforeUser',
      'contextHooks.beforeInference.inject.afterUser',
    ]);
    assert.deepEqual([...grantedPaths(['contextHooks.*'])], [], 'no depth-2 path under contextHooks');
    assert.deepEqual([...grantedPaths(['contextHooks.*.observe'])], ['contextHooks.beforeInference.observe']);
    assert.deepEqual([...grantedPaths(['*'])], ['pushEvents', 'tools', 'modelInfo', 'inferenceRequest', 'inferenceLifecycle']);
    assert.equal(entryGrants('tool*', 'tools'), false, '* inside a segment is a literal character');
  });

  it('unknown leaves and non-strings grant nothing and are reported', () => {
    assert.deepEqual([...grantedPaths(['toolLifecycle.results', 3, null] as unknown[])], []);
    assert.deepEqual(unmatchedEntries(['toolLifecycle.results', 3]), ['toolLifecycle.results', '3']);
  });

  it('grants follow the given vocabulary', () => {
    assert.deepEqual([...grantedPaths(['a.*'], ['a.b', 'a.c', 'a'])], ['a.b', 'a.c']);
  });

  it('the vocabulary has the RFC-007 leaves and no results leaf', () => {
    assert.ok(MCPL_CAPABILITY_PATHS.includes('toolLifecycle.observe'));
    assert.ok(MCPL_CAPABILITY_PATHS.includes('toolLifecycle.inputs'));
    assert.ok(!MCPL_CAPABILITY_PATHS.includes('toolLifecycle.results'));
  });
});

describe('advertisedPaths (SPEC §5.1 generic walk)', () => {
  it('true at any level covers every leaf beneath', () => {
    const paths = advertisedPaths({ version: '0.5', toolLifecycle: true, contextHooks: { beforeInference: true } });
    assert.ok(paths.has('toolLifecycle.observe') && paths.has('toolLifecycle.inputs'));
    assert.ok(paths.has('contextHooks.beforeInference.inject.system'));
    assert.ok(!paths.has('tools'));
  });

  it('nested objects name leaves; false or absence means none', () => {
    const paths = advertisedPaths({ toolLifecycle: { observe: true, inputs: false }, inferenceRequest: { streaming: true }, channels: { publish: true } });
    assert.deepEqual([...paths], ['inferenceRequest', 'inferenceRequest.streaming', 'channels.publish', 'toolLifecycle.observe']);
  });

  it('junk advertisements cover nothing', () => {
    for (const junk of [undefined, null, 'all', [true], { toolLifecycle: 'yes' }]) assert.deepEqual([...advertisedPaths(junk)], []);
  });
});
