import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OBSERVE_LIMITS, parseObserveParams } from '../../src/lifecycle/observe-params.ts';
import { loadConformance } from './conformance-data.ts';

interface ParserCase {
  id: string;
  params?: unknown;
  valid: boolean;
}

describe('tools/observe parser agrees with the RFC-007 §13 schema on every parser vector', () => {
  const data = loadConformance<{ profile: string; cases: ParserCase[] }>('tools-observe-parser-vectors.json');
  it('holds 72 cases', () => {
    assert.equal(data.profile, 'rfc-007-section-13');
    assert.equal(data.cases.length, 72);
  });
  for (const c of data.cases) {
    it(`${c.valid ? 'accepts' : 'rejects'} ${c.id}`, () => {
      const result = parseObserveParams(c.params);
      assert.equal(result.ok, c.valid, result.ok ? 'accepted' : result.message);
      if (!result.ok) {
        assert.equal(result.code, -32602);
        assert.ok(result.message.length > 0);
      }
    });
  }
});

describe('tools/observe params: shapes', () => {
  it('omitted params clear the filter; so do {} and rules: null', () => {
    for (const params of [undefined, {}, { rules: null }, { _meta: {} }]) {
      assert.deepEqual(parseObserveParams(params), { ok: true, filter: null });
    }
  });

  it('explicit null params are invalid', () => {
    const r = parseObserveParams(null);
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.message : '', /params: expected an object, got null/);
  });

  it('rules: [] is a filter with no rules (pause), not a clear', () => {
    const r = parseObserveParams({ rules: [] });
    assert.ok(r.ok && r.filter !== null);
    assert.equal(r.filter.rules.length, 0);
  });

  it('compiles rules with defaults: report true, input false', () => {
    const r = parseObserveParams({
      rules: [
        { match: { serverTool: 'click' }, input: ['x', 'y', 'target.window_id'] },
        { match: { class: 'comms' }, report: false },
        { match: { tool: 'blender--*', conversationId: 'conv_*', serverId: 's' }, input: true },
        { match: {} },
      ],
    });
    assert.ok(r.ok && r.filter);
    const [a, b, c, d] = r.filter.rules;
    assert.deepEqual(a!.input, ['x', 'y', 'target.window_id']);
    assert.equal(a!.report, true);
    assert.equal(a!.match.serverTool!.source, 'click');
    assert.equal(b!.report, false);
    assert.equal(b!.match.class, 'comms');
    assert.equal(c!.input, true);
    assert.equal(c!.match.tool!.matches('blender--run'), true);
    assert.equal(c!.match.conversationId!.matches('conv_9'), true);
    assert.deepEqual(d!.match, {});
    assert.equal(d!.input, false);
    assert.equal(r.filter.source.length, 4);
  });

  it('names the offending member in the message', () => {
    const cases: [unknown, RegExp][] = [
      [{ ruless: [] }, /unknown member "ruless"/],
      [{ rules: [{ match: { module: 'x' } }] }, /params\.rules\[0\]\.match: unknown member "module"/],
      [{ rules: [{ match: {} }, { match: { class: 'quantum' } }] }, /params\.rules\[1\]\.match\.class: expected one of comms/],
      [{ rules: [{ match: {}, report: 'no' }] }, /params\.rules\[0\]\.report: expected a boolean, got a string/],
      [{ rules: [{ match: {}, input: ['a', ''] }] }, /params\.rules\[0\]\.input\[1\]: a field path must not be empty/],
      [{ rules: [{}] }, /"match" is required/],
      [{ _meta: [] }, /params\._meta: expected an object, got an array/],
    ];
    for (const [params, pattern] of cases) {
      const r = parseObserveParams(params);
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.message : '', pattern);
      assert.equal(!r.ok ? r.data : 'x', undefined, 'only limit errors carry data');
    }
  });
});

describe('tools/observe params: limits', () => {
  const rule = { match: {} };

  it('exports the limits it applies', () => {
    assert.deepEqual(OBSERVE_LIMITS, { rules: 64, pathsPerRule: 64, stringLength: 256 });
  });

  it('accepts exactly the rule limit and rejects one more with data.limit "rules"', () => {
    assert.equal(parseObserveParams({ rules: Array(64).fill(rule) }).ok, true);
    const over = parseObserveParams({ rules: Array(65).fill(rule) });
    assert.deepEqual(!over.ok && over.data, { limit: 'rules' });
    assert.equal(!over.ok && over.code, -32602);
  });

  it('checks the rule count before the rules themselves', () => {
    const over = parseObserveParams({ rules: Array(65).fill({ bogus: true }) });
    assert.deepEqual(!over.ok && over.data, { limit: 'rules' });
  });

  it('field paths per rule: 64 accepted, 65 rejected with "pathsPerRule"', () => {
    const paths = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);
    assert.equal(parseObserveParams({ rules: [{ match: {}, input: paths(64) }] }).ok, true);
    const over = parseObserveParams({ rules: [{ match: {}, input: paths(65) }] });
    assert.deepEqual(!over.ok && over.data, { limit: 'pathsPerRule' });
  });

  it('string length counts code points, for patterns and paths', () => {
    const astral256 = '🙂'.repeat(256); // 512 UTF-16 units, 256 code points
    assert.equal(parseObserveParams({ rules: [{ match: { tool: astral256 }, input: [astral256] }] }).ok, true);
    for (const params of [
      { rules: [{ match: { tool: '🙂'.repeat(257) } }] },
      { rules: [{ match: { conversationId: 'x'.repeat(257) } }] },
      { rules: [{ match: {}, input: ['a'.repeat(257)] }] },
    ]) {
      const r = parseObserveParams(params);
      assert.deepEqual(!r.ok && r.data, { limit: 'stringLength' });
    }
  });

  it('lone surrogates count as one code point each', () => {
    const lone = '\ud800'.repeat(256);
    assert.equal(parseObserveParams({ rules: [{ match: { tool: lone } }] }).ok, true);
    assert.equal(parseObserveParams({ rules: [{ match: { tool: lone + '\ud800' } }] }).ok, false);
  });

  it('honours configured limits', () => {
    const small = { rules: 2, pathsPerRule: 1, stringLength: 3 };
    assert.deepEqual((r => !r.ok && r.data)(parseObserveParams({ rules: [rule, rule, rule] }, small)), { limit: 'rules' });
    assert.deepEqual((r => !r.ok && r.data)(parseObserveParams({ rules: [{ match: {}, input: ['a', 'b'] }] }, small)), { limit: 'pathsPerRule' });
    assert.deepEqual((r => !r.ok && r.data)(parseObserveParams({ rules: [{ match: { tool: 'abcd' } }] }, small)), { limit: 'stringLength' });
  });
});
