import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  effectiveClass,
  findOverride,
  isToolClass,
  parseClassList,
  parseDeclaredClass,
  TOOL_CLASSES,
} from '../../src/vocabulary/classes.ts';
import { decideOpening } from '../../src/lifecycle/decide.ts';
import { computeLifecycleGrant, type NarrowingSpec } from '../../src/lifecycle/grants.ts';
import { parseObserveParams } from '../../src/lifecycle/observe-params.ts';
import { loadConformance } from '../lifecycle/conformance-data.ts';

interface ClassStage {
  tool: { name: string; _meta?: unknown };
  expect: { classes: string[]; source: string; input: 'sent' | 'withheld' };
  diagnosticHint?: string;
}
interface ClassVector {
  id: string;
  origin: 'server' | 'host';
  inputsPolicy: NarrowingSpec;
  input: Record<string, unknown>;
  overrides?: Record<string, string[]>;
  hostClasses?: Record<string, string[]>;
  modelName?: string;
  stages: (ClassStage & { modelName: string })[];
}

describe('RFC-008 vocabulary', () => {
  it('matches the schema $defs ToolClass enum exactly, in order', () => {
    const schema = loadConformance<{ $defs: { ToolClass: { enum: string[] } } }>('tools-observe.schema.json');
    assert.deepEqual([...TOOL_CLASSES], schema.$defs.ToolClass.enum);
  });

  it('isToolClass is exact and case-sensitive', () => {
    for (const c of TOOL_CLASSES) assert.equal(isToolClass(c), true);
    for (const v of ['Shell', 'quantum', '', ' shell', 3, null, undefined, ['shell']]) assert.equal(isToolClass(v), false);
  });
});

describe('parseDeclaredClass', () => {
  it('reads a declared class', () => {
    assert.deepEqual(parseDeclaredClass({ 'mcpl/class': ['shell'] }), { classes: ['shell'], dropped: [], ignoredKeys: [] });
  });

  it('no _meta, or no mcpl/class, is unclassed with a reason', () => {
    const none = parseDeclaredClass(undefined);
    assert.deepEqual(none.classes, []);
    assert.match(none.unclassedReason!, /no _meta/);
    const other = parseDeclaredClass({ 'vendor/x': 1 });
    assert.deepEqual(other.classes, []);
    assert.match(other.unclassedReason!, /no mcpl\/class/);
    assert.deepEqual(other.ignoredKeys, []); // keys outside mcpl/ are not ours to report
  });

  it('_meta that is not an object is unclassed', () => {
    for (const meta of [null, 'shell', ['shell'], 3]) {
      const parsed = parseDeclaredClass(meta);
      assert.deepEqual(parsed.classes, []);
      assert.match(parsed.unclassedReason!, /_meta is not an object/);
    }
  });

  it('a non-array slot is unclassed and says so (case 10)', () => {
    for (const slot of ['shell', { 0: 'shell' }, null, true]) {
      const parsed = parseDeclaredClass({ 'mcpl/class': slot });
      assert.deepEqual(parsed.classes, []);
      assert.match(parsed.unclassedReason!, /not an array/);
    }
  });

  it('drops and reports unknown strings and non-strings (cases 3, 4)', () => {
    assert.deepEqual(parseDeclaredClass({ 'mcpl/class': ['shell', 'quantum'] }), {
      classes: ['shell'],
      dropped: ['quantum'],
      ignoredKeys: [],
    });
    const only = parseDeclaredClass({ 'mcpl/class': ['quantum', 7, null, { a: 1 }, 'SHELL'] });
    assert.deepEqual(only.classes, []);
    assert.deepEqual(only.dropped, ['quantum', '7', 'null', '{"a":1}', 'SHELL']);
    assert.match(only.unclassedReason!, /no known class/);
  });

  it('an empty array is unclassed', () => {
    const parsed = parseDeclaredClass({ 'mcpl/class': [] });
    assert.deepEqual(parsed.classes, []);
    assert.match(parsed.unclassedReason!, /empty/);
  });

  it('keeps declaration order and collapses duplicates to the first occurrence', () => {
    assert.deepEqual(parseDeclaredClass({ 'mcpl/class': ['files', 'comms', 'files', 'shell', 'comms'] }).classes, [
      'files',
      'comms',
      'shell',
    ]);
  });

  it('ignores and reports undefined mcpl/ keys without affecting the class (case 11)', () => {
    assert.deepEqual(parseDeclaredClass({ 'mcpl/class': ['shell'], 'mcpl/priority': 'high', other: 1 }), {
      classes: ['shell'],
      dropped: [],
      ignoredKeys: ['mcpl/priority'],
    });
    const alone = parseDeclaredClass({ 'mcpl/priority': 'high' });
    assert.deepEqual(alone.classes, []);
    assert.deepEqual(alone.ignoredKeys, ['mcpl/priority']);
  });

  it('parseClassList splits known from unknown', () => {
    assert.deepEqual(parseClassList(['web', 'nope', 'web']), { classes: ['web'], dropped: ['nope'] });
  });
});

describe('effectiveClass', () => {
  it('override wins entirely over host and server, never merged', () => {
    assert.deepEqual(effectiveClass({ override: ['comms'], hostTable: ['body'], declared: ['body', 'media'] }), {
      classes: ['comms'],
      source: 'override',
    });
  });
  it('host table next, then the declaration, then none', () => {
    assert.deepEqual(effectiveClass({ hostTable: ['comms'], declared: ['shell'] }), { classes: ['comms'], source: 'host' });
    assert.deepEqual(effectiveClass({ declared: ['shell', 'files'] }), { classes: ['shell', 'files'], source: 'server' });
    assert.deepEqual(effectiveClass({ declared: [] }), { classes: [], source: 'none' });
    assert.deepEqual(effectiveClass({}), { classes: [], source: 'none' });
  });
  it('an explicit empty override unclasses the tool (tightening is allowed)', () => {
    assert.deepEqual(effectiveClass({ override: [], declared: ['shell'] }), { classes: [], source: 'override' });
  });
  it('junk inside typed lists never becomes a class', () => {
    assert.deepEqual(effectiveClass({ override: ['shell', 'bogus' as never] }), { classes: ['shell'], source: 'override' });
  });
});

describe('findOverride', () => {
  const table = { 's--speak': ['comms' as const], 'chat--*': ['comms' as const], '*': ['control' as const] };
  it('exact key first, then patterns in insertion order', () => {
    assert.deepEqual(findOverride(table, 's--speak'), ['comms']);
    assert.deepEqual(findOverride(table, 'chat--send'), ['comms']);
    assert.deepEqual(findOverride(table, 'other'), ['control']);
    assert.equal(findOverride({ 's--speak': ['comms'] }, 's--speak2'), undefined);
    assert.equal(findOverride(undefined, 'x'), undefined);
  });
});

describe('RFC-008 conformance vectors: class and argument treatment per stage', () => {
  const data = loadConformance<{ vectors: ClassVector[] }>('tool-class-vectors.json');
  const parsedFilter = parseObserveParams({ rules: [{ match: {}, input: true }] });
  assert.ok(parsedFilter.ok);
  for (const vector of data.vectors) {
    it(vector.id, () => {
      const grant = computeLifecycleGrant({
        enabledCapabilities: ['tools', 'toolLifecycle.observe', 'toolLifecycle.inputs'],
        toolLifecycle: { inputs: vector.inputsPolicy },
      });
      for (const stage of vector.stages) {
        const name = stage.modelName;
        const parsed = parseDeclaredClass(stage.tool._meta);
        const result = effectiveClass({
          override: findOverride(vector.overrides as Record<string, never[]> | undefined, name),
          hostTable: vector.origin === 'host' ? (vector.hostClasses?.[name] as never[] | undefined) : undefined,
          declared: vector.origin === 'server' ? parsed.classes : undefined,
        });
        assert.deepEqual(result.classes, stage.expect.classes, `${vector.id} ${name}`);
        assert.equal(result.source, stage.expect.source, `${vector.id} ${name} source`);
        if (stage.diagnosticHint !== undefined && vector.origin === 'server') {
          const logged = [...parsed.dropped, ...parsed.ignoredKeys, parsed.unclassedReason ?? ''].join(' ');
          assert.ok(logged.includes(stage.diagnosticHint), `${vector.id}: diagnostics ${JSON.stringify(logged)} mention ${stage.diagnosticHint}`);
        }
        const [serverId, serverTool] = vector.origin === 'server' ? name.split('--') : [undefined, undefined];
        const call = { tool: name, classes: result.classes, serverId, serverTool, conversationId: 'conv_1', input: vector.input };
        const decision = decideOpening(call, grant, parsedFilter.ok ? parsedFilter.filter : null);
        if (stage.expect.input === 'sent') {
          assert.deepEqual(decision, { input: vector.input }, `${vector.id} ${name} input sent`);
        } else {
          assert.deepEqual(decision, { inputWithheld: true }, `${vector.id} ${name} input withheld`);
        }
      }
    });
  }
  it('holds all 11 cases in 24 stages', () => {
    assert.equal(data.vectors.length, 11);
    assert.equal(data.vectors.reduce((n, v) => n + v.stages.length, 0), 24);
  });
});
