/**
 * Cross-check: walks the RFC-007 behavioural vectors whose outcome is decided by pure logic
 * (grants, filters, single calls that are not held) through computeLifecycleGrant,
 * parseObserveParams and decideOpening, and compares what each observer would be sent with
 * the vector's expectation. The full behavioural run, with processes, is the conformance
 * runner's job; this catches decision bugs without any I/O.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolClass } from '../../src/vocabulary/classes.ts';
import { decideOpening, type OpeningDecision } from '../../src/lifecycle/decide.ts';
import type { CallFacts, CompiledFilter } from '../../src/lifecycle/decision-types.ts';
import { computeLifecycleGrant, type LifecycleGrant, type OperatorPolicy } from '../../src/lifecycle/grants.ts';
import { DEFAULT_INPUT_BOUND_BYTES } from '../../src/lifecycle/input-bound.ts';
import { OBSERVE_LIMITS, parseObserveParams } from '../../src/lifecycle/observe-params.ts';
import { validateFeatureSets } from '../../src/mcpl/policy.ts';
import { loadConformance, objectOfUtf8Bytes } from './conformance-data.ts';

interface VectorCall { key: string; tool: string; input: unknown; hold?: boolean; approval?: boolean }
interface Action {
  op: string;
  server?: string;
  params?: unknown;
  expectCode?: number;
  expectLimit?: boolean;
  calls?: VectorCall[];
  conversation?: string;
  background?: boolean;
  policy?: OperatorPolicy;
}
interface Expected { key: string; tool: string; class: ToolClass[]; input?: unknown; inputWithheld?: boolean; inputAltered?: boolean; bounded?: boolean }
interface Vector {
  rfcVector: number;
  id: string;
  title: string;
  observers: { id: string; policy: OperatorPolicy; featureSets?: unknown }[];
  tools: { name: string; classes: ToolClass[] }[];
  actions: Action[];
  expect: Record<string, Expected[]>;
  diagnostic?: string;
  disabledFeature?: { name: string; reason: string };
  grant?: { include: string[]; exclude: string[] };
}

const PURE_OPS = new Set(['observe', 'call', 'grant']);
const isPure = (v: Vector) =>
  v.actions.every((a) => PURE_OPS.has(a.op) && !a.background && !(a.calls ?? []).some((c) => c.hold || c.approval));

function expand(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && '$fixture' in value) {
    const fixture = value as { $fixture: string; bytes?: number };
    if (fixture.$fixture === 'object-utf8-bytes') return objectOfUtf8Bytes(fixture.bytes!);
    if (fixture.$fixture === 'rules-over-limit') return { rules: Array.from({ length: OBSERVE_LIMITS.rules + 1 }, () => ({ match: {} })) };
    throw new Error(`unknown fixture ${fixture.$fixture}`);
  }
  return value;
}

function facts(vector: Vector, c: VectorCall, conversationId: string): CallFacts {
  const tool = vector.tools.find((t) => t.name === c.tool);
  assert.ok(tool, `tool ${c.tool} is declared`);
  const [prefix, rest] = c.tool.split('--') as [string, string];
  const host = prefix === 'host';
  return { tool: c.tool, classes: tool.classes, serverId: host ? undefined : prefix, serverTool: host ? undefined : rest, conversationId, input: expand(c.input) };
}

/** Plays a pure vector; returns each observer's decisions by call key. */
function play(vector: Vector): Map<string, Map<string, OpeningDecision | null>> {
  const state = new Map<string, { grant: LifecycleGrant; filter: CompiledFilter | null }>();
  const seen = new Map<string, Map<string, OpeningDecision | null>>();
  for (const o of vector.observers) {
    state.set(o.id, { grant: computeLifecycleGrant(o.policy), filter: null });
    seen.set(o.id, new Map());
  }
  for (const action of vector.actions) {
    const observer = action.server ?? 'obs';
    const s = state.get(observer)!;
    if (action.op === 'observe') {
      if (s.grant.observe === null) {
        assert.equal(action.expectCode, -32002, `${vector.id}: tools/observe without the grant is -32002`);
        continue;
      }
      const parsed = parseObserveParams(expand(action.params));
      if (parsed.ok) {
        assert.equal(action.expectCode, undefined, `${vector.id}: ${JSON.stringify(action.params)} was accepted`);
        s.filter = parsed.filter;
      } else {
        assert.equal(action.expectCode, parsed.code, `${vector.id}: ${parsed.message}`);
        if (action.expectLimit) assert.ok(parsed.data?.limit, `${vector.id}: data.limit`);
      }
    } else if (action.op === 'grant') {
      s.grant = computeLifecycleGrant(action.policy!);
      if (s.grant.observe === null) s.filter = null; // revoking observe discards the filter (§4.5)
    } else {
      for (const c of action.calls!) {
        const call = facts(vector, c, action.conversation!);
        for (const [id, st] of state) {
          if (call.serverId === id) continue; // a connection never hears about its own tools
          seen.get(id)!.set(c.key, decideOpening(call, st.grant, st.filter, { inputBoundBytes: DEFAULT_INPUT_BOUND_BYTES }));
        }
      }
    }
  }
  return seen;
}

describe('RFC-007 vectors through the pure decision logic', () => {
  const data = loadConformance<{ profile: string; vectors: Vector[] }>('tool-lifecycle-vectors.json');
  const pure = data.vectors.filter(isPure);

  it('walks most of the 54 vectors', () => {
    assert.equal(data.profile, 'rfc-007-revision-3');
    assert.equal(data.vectors.length, 54);
    assert.ok(pure.length >= 40, `${pure.length} pure vectors`);
  });

  for (const vector of pure) {
    it(`${vector.rfcVector}. ${vector.title}`, () => {
      const seen = play(vector);
      for (const [observer, expected] of Object.entries(vector.expect)) {
        const decisions = seen.get(observer)!;
        for (const [key, decision] of decisions) {
          const want = expected.find((e) => e.key === key);
          if (want === undefined) {
            assert.equal(decision, null, `${observer} must hear nothing about ${key}`);
            continue;
          }
          assert.ok(decision !== null, `${observer} hears about ${key}`);
          const tool = vector.tools.find((t) => t.name === want.tool)!;
          assert.deepEqual(tool.classes, want.class);
          if (want.bounded) {
            assert.ok(decision.input !== undefined && Buffer.byteLength(JSON.stringify(decision.input)) <= DEFAULT_INPUT_BOUND_BYTES);
          } else if ('input' in want) {
            assert.deepEqual(decision.input, want.input);
          } else {
            assert.equal('input' in decision, false, `${key}: no input`);
          }
          assert.equal(decision.inputWithheld, want.inputWithheld, `${key}: inputWithheld`);
          assert.equal(decision.inputAltered, want.inputAltered, `${key}: inputAltered`);
        }
        for (const e of expected) assert.ok(decisions.has(e.key), `${observer} expectation ${e.key} was played`);
      }
      const first = vector.observers[0]!;
      const grant = computeLifecycleGrant(first.policy);
      if (vector.diagnostic) assert.ok(grant.diagnostics.some((d) => d.code === vector.diagnostic), vector.diagnostic);
      if (vector.grant) {
        for (const p of vector.grant.include) assert.ok(grant.paths.includes(p), `grants ${p}`);
        for (const p of vector.grant.exclude) assert.ok(!grant.paths.includes(p), `does not grant ${p}`);
      }
      if (vector.disabledFeature) {
        const verdict = validateFeatureSets(first.featureSets);
        assert.ok(verdict.disabled.some((d) => d.name === vector.disabledFeature!.name && d.reason === vector.disabledFeature!.reason));
      }
    });
  }
});
