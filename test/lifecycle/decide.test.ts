import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideOpening, mayCarryInput, mayDeliverTerminal } from '../../src/lifecycle/decide.ts';
import type { CompiledFilter } from '../../src/lifecycle/decision-types.ts';
import { call } from './call-facts.ts';
import { computeLifecycleGrant, type NarrowingSpec } from '../../src/lifecycle/grants.ts';
import { REDACTED } from '../../src/lifecycle/credentials.ts';
import { parseObserveParams } from '../../src/lifecycle/observe-params.ts';
import { objectOfUtf8Bytes } from './conformance-data.ts';

function filter(rules: unknown[]): CompiledFilter {
  const r = parseObserveParams({ rules });
  if (!r.ok || r.filter === null) throw new Error('bad test filter');
  return r.filter;
}
const observeOnly = computeLifecycleGrant({ enabledCapabilities: ['toolLifecycle.observe'] });
const both = (inputs: NarrowingSpec, observe?: NarrowingSpec) =>
  computeLifecycleGrant({ enabledCapabilities: ['toolLifecycle.observe', 'toolLifecycle.inputs'], toolLifecycle: { inputs, observe } });
const all = filter([{ match: {}, input: true }]);

describe('decideOpening: RFC-007 §6.4 precedence', () => {
  it('step 1: no observe grant, or outside its narrowing → no events', () => {
    assert.equal(decideOpening(call(), computeLifecycleGrant({}), all), null);
    assert.equal(decideOpening(call(), both({ classes: ['shell'] }, { tools: ['y--*'] }), all), null);
  });

  it('step 2: no filter → reported, metadata only, even with both grants', () => {
    assert.deepEqual(decideOpening(call(), both({ classes: ['shell'] }), null), {});
  });

  it('step 2: a filter whose first match suppresses, or that matches nothing → no events', () => {
    assert.equal(decideOpening(call(), observeOnly, filter([{ match: { class: 'shell' }, report: false }, { match: {} }])), null);
    assert.equal(decideOpening(call(), observeOnly, filter([])), null);
  });

  it('step 3: rule without input → metadata only, no inputWithheld', () => {
    assert.deepEqual(decideOpening(call(), both({ classes: ['shell'] }), filter([{ match: {} }])), {});
    assert.deepEqual(decideOpening(call(), both({ classes: ['shell'] }), filter([{ match: {}, input: false }])), {});
  });

  it('step 4: requested without the inputs grant → nothing said about input', () => {
    assert.deepEqual(decideOpening(call(), observeOnly, all), {});
  });

  it('step 4: outside the inputs narrowing → inputWithheld', () => {
    assert.deepEqual(decideOpening(call(), both({ tools: ['y--*'] }), all), { inputWithheld: true });
    assert.deepEqual(decideOpening(call(), both({ classes: ['computer'] }), all), { inputWithheld: true });
  });

  it('step 4: comms (alone or among others) and unclassed never carry input', () => {
    const wide = both({ tools: ['*'] });
    assert.deepEqual(decideOpening(call({ classes: ['comms'] }), wide, all), { inputWithheld: true });
    assert.deepEqual(decideOpening(call({ classes: ['files', 'comms'] }), both({ classes: ['files'] }), all), { inputWithheld: true });
    assert.deepEqual(decideOpening(call({ classes: [] }), wide, all), { inputWithheld: true });
    assert.equal(mayCarryInput({ classes: ['memory'] }), true);
  });

  it('step 4: arguments that are not an object are withheld', () => {
    assert.deepEqual(decideOpening(call({ input: 'text' }), both({ tools: ['*'] }), all), { inputWithheld: true });
  });

  it('step 5: all arguments, unaltered', () => {
    assert.deepEqual(decideOpening(call(), both({ classes: ['shell'] }), all), { input: { a: 1, b: 2 } });
  });

  it('step 5: field selection alone never sets inputAltered', () => {
    const d = decideOpening(call(), both({ classes: ['shell'] }), filter([{ match: { tool: 'x--*' }, input: ['a'] }, { match: {}, input: true }]));
    assert.deepEqual(d, { input: { a: 1 } });
    assert.deepEqual(decideOpening(call(), both({ classes: ['shell'] }), filter([{ match: {}, input: ['z'] }])), { input: {} });
    assert.deepEqual(decideOpening(call(), both({ classes: ['shell'] }), filter([{ match: {}, input: [] }])), { input: {} });
  });

  it('step 5: the bound shortens and sets inputAltered', () => {
    const d = decideOpening(call({ input: objectOfUtf8Bytes(204800) }), both({ classes: ['shell'] }), all);
    assert.ok(d?.input);
    assert.equal(d.inputAltered, true);
    assert.ok(Buffer.byteLength(JSON.stringify(d.input)) <= 16384);
    assert.equal('inputWithheld' in d, false);
    const small = decideOpening(call({ input: objectOfUtf8Bytes(2000) }), both({ classes: ['shell'] }), all, { inputBoundBytes: 500 });
    assert.ok(small?.input && Buffer.byteLength(JSON.stringify(small.input)) <= 500);
  });

  it('the bound applies after field selection', () => {
    const input = { keep: 'k', big: 'x'.repeat(100_000) };
    assert.deepEqual(decideOpening(call({ input }), both({ classes: ['shell'] }), filter([{ match: {}, input: ['keep'] }])), { input: { keep: 'k' } });
  });

  it('redaction sets inputAltered; it can be turned off', () => {
    const input = { command: 'curl', token: 'abc' };
    assert.deepEqual(decideOpening(call({ input }), both({ classes: ['shell'] }), all), { input: { command: 'curl', token: REDACTED }, inputAltered: true });
    assert.deepEqual(decideOpening(call({ input }), both({ classes: ['shell'] }), all, { redactCredentials: false }), { input });
  });

  it('too large to bound meaningfully → withheld', () => {
    assert.deepEqual(decideOpening(call({ input: { n: 123456789 } }), both({ classes: ['shell'] }), all, { inputBoundBytes: 5 }), { inputWithheld: true });
  });

  it('never sets a flag to false', () => {
    const grants = [observeOnly, both({ classes: ['shell'] }), both({ tools: ['none'] })];
    const filters = [null, all, filter([{ match: {} }])];
    for (const g of grants) for (const f of filters) {
      const d = decideOpening(call(), g, f);
      assert.ok(d !== null);
      for (const value of Object.values(d)) assert.notEqual(value, false);
    }
  });
});

describe('mayDeliverTerminal', () => {
  it('while observe is granted and its narrowing covers the call', () => {
    assert.equal(mayDeliverTerminal(call(), observeOnly), true);
    assert.equal(mayDeliverTerminal(call(), computeLifecycleGrant({ enabledCapabilities: ['tools'] })), false, 'observe revoked');
    assert.equal(mayDeliverTerminal(call(), both({ classes: ['shell'] }, { tools: ['y--*'] })), false, 'narrowed away');
  });

  it('revoking only inputs keeps the terminal', () => {
    assert.equal(mayDeliverTerminal(call(), computeLifecycleGrant({ enabledCapabilities: ['toolLifecycle.observe'] })), true);
  });
});
