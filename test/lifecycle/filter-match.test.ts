import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallFacts, CompiledFilter } from '../../src/lifecycle/decision-types.ts';
import { matchFilter } from '../../src/lifecycle/filter-match.ts';
import { parseObserveParams } from '../../src/lifecycle/observe-params.ts';

function filter(rules: unknown[]): CompiledFilter {
  const r = parseObserveParams({ rules });
  if (!r.ok || r.filter === null) throw new Error(`bad test filter: ${JSON.stringify(r)}`);
  return r.filter;
}

const shell: CallFacts = { tool: 'x--run', classes: ['shell'], serverId: 'x', serverTool: 'run', conversationId: 'conv_1', input: {} };
const web: CallFacts = { ...shell, tool: 'y--go', classes: ['web'], serverId: 'y', serverTool: 'go' };
const hostTool: CallFacts = { tool: 'host--act', classes: ['body'], conversationId: 'conv_1', input: {} };
const unclassed: CallFacts = { ...shell, classes: [] };

describe('matchFilter', () => {
  it('no matching rule means not reported', () => {
    assert.deepEqual(matchFilter(filter([{ match: { tool: 'y--*' } }]), shell), { report: false, input: false });
    assert.deepEqual(matchFilter(filter([]), shell), { report: false, input: false });
  });

  it('first matching rule wins', () => {
    const f = filter([{ match: { tool: 'x--*' }, input: ['a'] }, { match: {}, input: true }]);
    assert.deepEqual(matchFilter(f, shell), { report: true, input: ['a'] });
    assert.deepEqual(matchFilter(f, web), { report: true, input: true });
  });

  it('a suppressing rule carves an exception out of a later catch-all', () => {
    const f = filter([{ match: { class: 'comms' }, report: false, input: true }, { match: {} }]);
    assert.deepEqual(matchFilter(f, { ...shell, classes: ['files', 'comms'] }), { report: false, input: false });
    assert.deepEqual(matchFilter(f, shell), { report: true, input: false });
  });

  it('every present member must match', () => {
    const f = filter([{ match: { serverId: 'x', conversationId: 'conv_2' } }]);
    assert.equal(matchFilter(f, shell).report, false);
    assert.equal(matchFilter(f, { ...shell, conversationId: 'conv_2' }).report, true);
  });

  it('class rules match when the effective class contains the class', () => {
    const f = filter([{ match: { class: 'shell' } }]);
    assert.equal(matchFilter(f, shell).report, true);
    assert.equal(matchFilter(f, web).report, false);
    assert.equal(matchFilter(f, { ...shell, classes: ['files', 'shell'] }).report, true);
  });

  it('serverTool and serverId rules never match a host tool, even "*"', () => {
    assert.equal(matchFilter(filter([{ match: { serverTool: '*' } }]), hostTool).report, false);
    assert.equal(matchFilter(filter([{ match: { serverId: '*' } }]), hostTool).report, false);
    assert.equal(matchFilter(filter([{ match: { serverTool: '*' } }]), shell).report, true);
    assert.equal(matchFilter(filter([{ match: { tool: 'host--*' } }]), hostTool).report, true);
  });

  it('class rules never match an unclassed tool', () => {
    for (const c of ['comms', 'shell', 'control']) {
      assert.equal(matchFilter(filter([{ match: { class: c } }]), unclassed).report, false);
    }
    assert.equal(matchFilter(filter([{ match: {} }]), unclassed).report, true);
  });

  it('conversation patterns use the §6.2 grammar', () => {
    const f = filter([{ match: { conversationId: 'conv_*' } }]);
    assert.equal(matchFilter(f, shell).report, true);
    assert.equal(matchFilter(f, { ...shell, conversationId: 'child' }).report, false);
  });
});
