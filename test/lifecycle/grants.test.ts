import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { call } from './call-facts.ts';
import { computeLifecycleGrant, DEFAULT_INPUT_CLASSES, inNarrowing, type OperatorPolicy } from '../../src/lifecycle/grants.ts';

const codes = (policy: OperatorPolicy) => computeLifecycleGrant(policy).diagnostics.map((d) => d.code);
const BOTH = ['tools', 'toolLifecycle.observe', 'toolLifecycle.inputs'];

describe('computeLifecycleGrant', () => {
  it('an empty policy grants nothing (deny by default)', () => {
    assert.deepEqual(computeLifecycleGrant({}), { observe: null, inputs: null, paths: [], diagnostics: [] });
  });

  it('observe only: every call inside, no inputs', () => {
    const g = computeLifecycleGrant({ enabledCapabilities: ['tools', 'toolLifecycle.observe'] });
    assert.deepEqual(g.paths, ['tools', 'toolLifecycle.observe']);
    assert.ok(g.observe && inNarrowing(g.observe, call()));
    assert.equal(g.inputs, null);
    assert.deepEqual(g.diagnostics, []);
  });

  it('the bare parent grants nothing and says so', () => {
    const g = computeLifecycleGrant({ enabledCapabilities: ['tools', 'toolLifecycle'] });
    assert.deepEqual([g.observe, g.inputs, g.paths], [null, null, ['tools']]);
    assert.deepEqual(g.diagnostics.map((d) => d.code), ['grants-nothing']);
  });

  it('inputs without observe delivers nothing, with a diagnostic', () => {
    const g = computeLifecycleGrant({ enabledCapabilities: ['tools', 'toolLifecycle.inputs'], toolLifecycle: { inputs: { classes: ['shell'] } } });
    assert.equal(g.observe, null);
    assert.equal(g.inputs, null);
    assert.deepEqual(g.paths, ['tools', 'toolLifecycle.inputs']);
    assert.deepEqual(g.diagnostics.map((d) => d.code), ['inputs-without-observe']);
  });

  it('an unnarrowed inputs grant (toolLifecycle.*) is narrowed to no tools, never to the default', () => {
    const g = computeLifecycleGrant({ enabledCapabilities: ['tools', 'toolLifecycle.*'] });
    assert.ok(g.inputs !== null, 'the connection still holds inputs');
    for (const classes of [['computer'], ['shell'], ['files']] as const) {
      assert.equal(inNarrowing(g.inputs, call({ classes })), false);
    }
    assert.deepEqual(g.diagnostics.map((d) => d.code), ['inputs-unnarrowed']);
    assert.deepEqual(codes({ enabledCapabilities: BOTH, toolLifecycle: { inputs: {} } }), ['inputs-unnarrowed']);
  });

  it('classes: "default" selects the named default class policy', () => {
    assert.deepEqual([...DEFAULT_INPUT_CLASSES].sort(), ['body', 'computer', 'files', 'media', 'shell', 'web']);
    const g = computeLifecycleGrant({ enabledCapabilities: BOTH, toolLifecycle: { inputs: { classes: 'default' } } });
    assert.ok(g.inputs);
    for (const c of ['computer', 'shell', 'files', 'web', 'media', 'body'] as const) assert.equal(inNarrowing(g.inputs, call({ classes: [c] })), true, c);
    for (const c of ['memory', 'notes', 'control', 'comms'] as const) assert.equal(inNarrowing(g.inputs, call({ classes: [c] })), false, c);
    assert.deepEqual(g.diagnostics, []);
  });

  it('narrowing by tool pattern, class and conversation: every stated key must hold', () => {
    const g = computeLifecycleGrant({
      enabledCapabilities: ['toolLifecycle.observe'],
      toolLifecycle: { observe: { tools: ['x--*', 'host--say'], classes: ['shell', 'web'], conversations: ['conv_*'] } },
    });
    assert.ok(g.observe);
    assert.equal(inNarrowing(g.observe, call()), true);
    assert.equal(inNarrowing(g.observe, call({ tool: 'y--run' })), false);
    assert.equal(inNarrowing(g.observe, call({ classes: ['files'] })), false);
    assert.equal(inNarrowing(g.observe, call({ classes: [] })), false, 'unclassed intersects nothing');
    assert.equal(inNarrowing(g.observe, call({ classes: ['files', 'web'] })), true);
    assert.equal(inNarrowing(g.observe, call({ conversationId: 'child' })), false);
  });

  it('a narrowing for an ungranted leaf has no effect and is reported', () => {
    const g = computeLifecycleGrant({ enabledCapabilities: ['tools'], toolLifecycle: { observe: { tools: ['*'] } } });
    assert.equal(g.observe, null);
    assert.deepEqual(g.diagnostics.map((d) => d.code), ['narrowing-without-grant']);
  });

  it('malformed narrowing fails closed: narrowed to nothing', () => {
    const bad: unknown[] = [{ tool: ['x--*'] }, { tools: 'x--*' }, { classes: 'all' }, null, ['x--*'], { conversations: [1] }];
    for (const spec of bad) {
      const g = computeLifecycleGrant({ enabledCapabilities: ['toolLifecycle.observe'], toolLifecycle: { observe: spec as never } });
      assert.ok(g.observe);
      assert.equal(inNarrowing(g.observe, call()), false, JSON.stringify(spec));
      assert.deepEqual(g.diagnostics.map((d) => d.code), ['invalid-narrowing'], JSON.stringify(spec));
    }
  });

  it('unknown classes in a narrowing are ignored and reported (narrowing only shrinks)', () => {
    const g = computeLifecycleGrant({ enabledCapabilities: BOTH, toolLifecycle: { inputs: { classes: ['shell', 'quantum' as never] } } });
    assert.ok(g.inputs && inNarrowing(g.inputs, call()));
    assert.deepEqual(g.diagnostics.map((d) => d.code), ['unknown-class']);
  });

  it('an advertisement, when given, bounds the grant and reports advertised denials', () => {
    const g = computeLifecycleGrant({ enabledCapabilities: ['tools', 'toolLifecycle.observe'] }, {
      advertised: new Set(['toolLifecycle.observe', 'toolLifecycle.inputs']),
    });
    assert.deepEqual(g.paths, ['toolLifecycle.observe']);
    assert.deepEqual(g.diagnostics.map((d) => d.code), ['advertised-denied']);
    const none = computeLifecycleGrant({ enabledCapabilities: BOTH, toolLifecycle: { inputs: { classes: ['shell'] } } }, { advertised: new Set() });
    assert.deepEqual([none.observe, none.inputs, none.paths], [null, null, []]);
  });
});
