/**
 * toolcell's own checker for RFC-007 observations: the vector says what must have been
 * seen, the adapter's observation says what was seen. Throws an AssertionError naming the
 * first mismatch.
 */
import assert from 'node:assert/strict';
import type { LifecycleVector } from './mcpl-adapter.ts';

const own = (o: object, k: string) => Object.hasOwn(o, k);
const setOf = (xs: readonly unknown[]) => [...new Set(xs)].sort();

interface Expectation {
  key: string;
  tool: string;
  conversationId: string;
  class: string[];
  phases: string[];
  input?: unknown;
  inputWithheld?: boolean;
  inputAltered?: boolean;
  isError?: boolean;
  bounded?: boolean;
  host?: boolean;
  durationExcludesApproval?: boolean;
}

export function verifyLifecycle(vector: LifecycleVector, seen: any, inputBound: number): { notes: string[] } {
  const notes: string[] = [];
  const witnesses = [...seen.hostCalls, ...Object.values(seen.peers as Record<string, any[]>).flat()];
  for (const action of vector.actions.filter((a) => a.op === 'call')) {
    for (const call of action.calls!) {
      const expected = call.expectExecution === false ? 0 : 1;
      const runs = witnesses.filter((w) => w.event === 'call' && w.key === call.key).length;
      assert.equal(runs, expected, `call ${call.key} executed ${expected} time(s)`);
      if (!call.hold || expected === 0) {
        assert.equal(witnesses.filter((w) => w.event === 'result' && w.key === call.key).length, expected, `call ${call.key} returned`);
      }
    }
  }
  const ids: Record<string, Record<string, string>> = {};
  for (const [observer, expectedRaw] of Object.entries(vector.expect)) {
    const expected = expectedRaw as Expectation[];
    const log: any[] = seen.peers[observer] ?? [];
    assert.ok(log.length > 0, `${observer} has a log`);
    assert.equal(log.at(-1).event, 'barrier', `${observer}'s log ends with the settling barrier`);
    const events = log.filter((e) => e.event === 'lifecycle').map((e) => e.params);
    const byId = new Map<string, any[]>();
    for (const e of events) {
      for (const k of ['toolCallId', 'inferenceId', 'conversationId', 'tool']) assert.equal(typeof e[k], 'string', `${k} is a string`);
      assert.ok(e.toolCallId && e.inferenceId, 'identity is not empty');
      assert.ok(Array.isArray(e.class), 'class is an array');
      assert.ok(['pending', 'started', 'completed', 'failed', 'aborted'].includes(e.phase), `phase ${e.phase} is known`);
      for (const k of ['result', 'output', 'content']) assert.ok(!own(e, k), `no ${k} member`);
      for (const k of ['isError', 'inputAltered', 'inputWithheld']) if (own(e, k)) assert.equal(typeof e[k], 'boolean', `${k} is boolean`);
      if (e.phase !== 'started') for (const k of ['input', 'inputAltered', 'inputWithheld']) assert.ok(!own(e, k), `${k} only on started`);
      if (e.phase !== 'completed') assert.ok(!own(e, 'isError'), 'isError only on completed');
      if (e.phase === 'started' || e.phase === 'pending') assert.ok(!own(e, 'durationMs'), 'durationMs only on terminals');
      if (own(e, 'durationMs')) assert.ok(Number.isInteger(e.durationMs) && e.durationMs >= 0, 'durationMs is a non-negative integer');
      const list = byId.get(e.toolCallId) ?? [];
      list.push(e);
      byId.set(e.toolCallId, list);
    }
    assert.equal(byId.size, expected.length, `${observer} heard about ${expected.length} call(s), got ${byId.size}`);
    const groups = [...byId.entries()];
    ids[observer] = {};
    for (const want of expected) {
      const at = groups.findIndex(([, g]) => g[0].tool === want.tool && g[0].conversationId === want.conversationId);
      assert.notEqual(at, -1, `${observer} heard about ${want.tool} in ${want.conversationId}`);
      const [id, group] = groups.splice(at, 1)[0]!;
      ids[observer]![want.key] = id;
      assert.deepEqual(group.map((g) => g.phase), want.phases, `phases of ${want.key}`);
      for (const g of group) {
        assert.equal(g.inferenceId, group[0].inferenceId, 'one inference per call');
        assert.deepEqual(setOf(g.class), setOf(want.class), `class of ${want.key}`);
        if (want.host) {
          assert.ok(!own(g, 'serverId') && !own(g, 'serverTool'), 'host tools carry no server fields');
        } else {
          const parts = want.tool.split('--');
          assert.equal(g.serverId, parts.slice(0, -1).join('--'), 'serverId');
          assert.equal(g.serverTool, parts.at(-1), 'serverTool');
        }
        if (g.phase === 'completed') {
          if (want.isError) assert.equal(g.isError, true, 'an error result completes with isError');
          else assert.ok(!g.isError, 'a success completes without isError');
        }
      }
      const started = group.find((g) => g.phase === 'started');
      if (started) {
        if (want.bounded) {
          assert.ok(started.input && typeof started.input === 'object' && !Array.isArray(started.input), 'bounded input is an object');
          assert.ok(Buffer.byteLength(JSON.stringify(started.input)) <= inputBound, 'bounded input fits the bound');
        } else if (own(want, 'input')) {
          assert.deepEqual(started.input, want.input, `input of ${want.key}`);
        } else {
          assert.ok(!own(started, 'input'), `no input on ${want.key}`);
        }
        for (const k of ['inputAltered', 'inputWithheld'] as const) {
          if (want[k]) assert.equal(started[k], true, `${k} on ${want.key}`);
          else assert.ok(!own(started, k), `${k} absent on ${want.key}`);
        }
      }
      if (want.durationExcludesApproval) {
        const approval = vector.actions.find((a) => a.op === 'approve' && a.key === want.key)!;
        const terminal = group.at(-1);
        assert.ok(Number.isInteger(terminal.durationMs), 'the terminal carries a duration');
        assert.ok(terminal.durationMs < approval.waitMs!, `duration ${terminal.durationMs} ms excludes the ${approval.waitMs} ms approval wait`);
        const t = seen.timings?.[want.key];
        assert.ok(t, 'host timings of the approval');
        assert.ok(t.pendingAtMs <= t.startedAtMs && t.startedAtMs <= t.terminalAtMs, 'pending ≤ started ≤ terminal');
        assert.ok(t.startedAtMs - t.pendingAtMs >= approval.waitMs! - t.resolutionMs, 'the approval wait happened');
        assert.ok(Math.abs(terminal.durationMs - (t.terminalAtMs - t.startedAtMs)) <= t.resolutionMs, 'duration measures execution only');
      }
    }
    if (typeof vector.forbiddenText === 'string') assert.ok(!JSON.stringify(events).includes(vector.forbiddenText), 'no outcome text');
  }
  for (const [index, action] of vector.actions.entries()) {
    if (action.op !== 'observe') continue;
    const response = seen.responses.find((r: any) => r.action === index)?.response;
    assert.ok(response, `observe action ${index} has a response`);
    const a = action as any;
    if (a.expectCode) {
      assert.equal(response.error?.code, a.expectCode, `observe action ${index} error code`);
      if (a.expectLimit) assert.equal(typeof response.error?.data?.limit, 'string', 'error names the limit');
    } else {
      assert.ok(!response.error, `observe action ${index} succeeded`);
      assert.deepEqual(response.result, {}, 'observe result is {}');
    }
  }
  const initial = seen.grants.find((g: any) => g.server === 'obs' && g.stage === 'initial').paths as string[];
  if (vector.grantUnchanged) {
    const final = seen.grants.find((g: any) => g.server === 'obs' && g.stage === 'final').paths as string[];
    assert.deepEqual(setOf(final), setOf(initial), 'grant unchanged');
  }
  const grant = vector.grant as { include: string[]; exclude: string[] } | undefined;
  if (grant) {
    for (const p of grant.include) assert.ok(initial.includes(p), `${p} granted`);
    for (const p of grant.exclude) assert.ok(!initial.includes(p), `${p} denied`);
  }
  const disabled = vector.disabledFeature as { name: string; reason: string } | undefined;
  if (disabled) {
    const policy = seen.peers.obs.find((e: any) => e.event === 'policy')?.params;
    assert.ok((policy?.disabled ?? []).includes(disabled.name), 'the policy exchange disabled the feature set');
    assert.ok(
      seen.diagnostics.some((l: string) => l.includes(`obs/${disabled.name} disabled: ${disabled.reason}`)),
      'the host logged why',
    );
  }
  const distinct = vector.distinctIds as string[] | undefined;
  if (distinct) assert.equal(new Set(distinct.map((k) => ids.obs![k])).size, distinct.length, 'distinct toolCallIds');
  const parallel = vector.parallel as string[] | undefined;
  if (parallel) {
    const phases = seen.peers.obs.filter((e: any) => e.event === 'lifecycle').map((e: any) => e.params.phase);
    assert.deepEqual(phases.slice(0, parallel.length), parallel.map(() => 'started'), 'all opened before any terminal');
  }
  const provider = vector.providerCalls as { server: string; tool: string }[] | undefined;
  if (provider) {
    for (const p of provider) assert.ok(seen.peers[p.server].some((e: any) => e.event === 'call' && e.params.name === p.tool), 'own tools/call seen');
  }
  if (typeof vector.diagnostic === 'string') notes.push(`diagnostic ${vector.diagnostic}: ${seen.diagnostics.some((l: string) => l.includes(vector.diagnostic as string))}`);
  const reuse = vector.recommendedReuse as { key: string; modelId: string } | undefined;
  if (reuse) notes.push(`provider id reused: ${ids.obs![reuse.key] === reuse.modelId}`);
  return { notes };
}
