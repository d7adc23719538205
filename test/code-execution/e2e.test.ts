/**
 * code_execution end to end, for JavaScript and Python: real fixture provider, four real
 * observer processes, the real host dispatch path. Every assertion waits for the events it
 * checks (a barrier on each observer's own connection), never for a fixed time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRig, turn, groups, innerCalls, PARENT, type Rig } from './setup.ts';

type Lang = 'javascript' | 'python';

const SCRIPTS: Record<Lang, Record<string, any>> = {
  javascript: {
    fanout: `const a = await tools.x__run({ step: 1 });
const slow = await tools.x__fetch({ delay_ms: 250 });
let err;
try { await tools["x--run"]({ error: 'bad input' }); } catch (e) { err = e.name + ':' + e.message; }
return { a: a.tool, slow: slow.tool, err };`,
    filters: `await tools.x__run({ n: 1 });
await tools.x__fetch({ n: 2 });
await tools.x__send({ to: 'bob', text: 'hi' });
return 'done';`,
    throwing: `try { await tools.notify({ to: 'bob' }); return 'no error'; } catch (e) { return e.name + ':' + e.message; }`,
    hold: (latch: string) => `await tools.x__run({ hold_file: ${JSON.stringify(latch)} }); return 'released';`,
    quick: `return (await tools.x__run({ q: 1 })).tool;`,
    refusals: `const out = [];
for (const attempt of [() => tools.code_execution({ code: 'return 1' }), () => tools.x__run({ forbidden: true })]) {
  try { await attempt(); out.push('ran'); } catch (e) { out.push(e.name + ':' + e.message); }
}
return out;`,
    endTurn: `await tools.finish_turn({}); return 'asked';`,
  } as any,
  python: {
    fanout: `a = await tools.x__run({"step": 1})
slow = await tools.x__fetch({"delay_ms": 250})
try:
    await tools["x--run"]({"error": "bad input"})
except Exception as e:
    err = type(e).__name__ + ":" + str(e)
{"a": a["tool"], "slow": slow["tool"], "err": err}`,
    filters: `await tools.x__run({"n": 1})
await tools.x__fetch({"n": 2})
await tools.x__send({"to": "bob", "text": "hi"})
"done"`,
    throwing: `try:
    await tools.notify({"to": "bob"})
    result = "no error"
except Exception as e:
    result = type(e).__name__ + ":" + str(e)
result`,
    hold: (latch: string) => `await tools.x__run({"hold_file": ${JSON.stringify(latch)}})
"released"`,
    quick: `(await tools.x__run({"q": 1}))["tool"]`,
    refusals: `out = []
for attempt in (lambda: tools.code_execution({"code": "1"}), lambda: tools.x__run({"forbidden": True})):
    try:
        await attempt()
        out.append("ran")
    except Exception as e:
        out.append(type(e).__name__ + ":" + str(e))
out`,
    endTurn: `await tools.finish_turn({})
"asked"`,
  } as any,
};

const ce = (language: Lang, code: string, extra: Record<string, unknown> = {}) => ({
  name: 'code_execution',
  input: { code, language, ...extra },
});

const summary = (o: { result: { structuredContent?: Record<string, unknown> } }) => o.result.structuredContent as any;

for (const language of ['javascript', 'python'] as const) {
  describe(`code_execution (${language})`, () => {
    let rig: Rig;
    before(async () => {
      rig = await makeRig();
    });
    after(async () => {
      await rig.close();
    });
    const script = (name: string) => SCRIPTS[language][name]!;

    test('inner calls are reported under their own names and classes, with the parent key and inference', async () => {
      const { outcomes, inferenceId } = await turn(rig, `fan-${language}`, [
        { ...ce(language, script('fanout')), modelCallId: 'toolu_01ParentAaaaaaaaaaaaaaaa' + language.length },
        { name: 'x--run', input: { model: true }, modelCallId: 'call_0' },
      ]);
      const [parent, model] = outcomes as [any, any];
      assert.equal(parent.status, 'completed');
      assert.equal(parent.result.isError, undefined, JSON.stringify(parent.result));
      assert.deepEqual(summary(parent).value, { a: 'run', slow: 'fetch', err: 'ToolError:bad input' });
      assert.equal(model.status, 'completed');
      await rig.barrier();
      const seen = groups(rig.observers.all);
      const parentEvents = seen.get(parent.toolCallId)!;
      assert.deepEqual(parentEvents.map((p) => p.phase), ['started', 'completed']);
      assert.equal(parentEvents[0].tool, 'code_execution');
      assert.deepEqual(parentEvents[0].class, ['shell']);
      assert.ok(parentEvents.every((p) => p._meta === undefined), 'the model call carries no parent key');
      const inner = innerCalls(rig.observers.all, parent.toolCallId);
      assert.deepEqual(inner.map((g) => g[0].tool), ['x--run', 'x--fetch', 'x--run']);
      for (const g of inner) {
        assert.deepEqual(g.map((p) => p.phase), ['started', 'completed']);
        for (const p of g) {
          assert.equal(p._meta[PARENT], parent.toolCallId, 'parent key on every phase');
          assert.equal(p.inferenceId, inferenceId, "the parent's inference id");
          assert.equal(p.conversationId, `fan-${language}`);
          assert.equal(p.serverId, 'x');
        }
      }
      assert.deepEqual(inner[0]![0].class, ['shell']);
      assert.deepEqual(inner[1]![0].class, ['web']);
      assert.deepEqual(inner[0]![0].input, { step: 1 }, 'inputs are decided by the inner tool, not by code_execution');
      assert.ok(inner[1]![1].durationMs >= 250, `the delayed call's duration covers the delay (${inner[1]![1].durationMs})`);
      assert.equal(inner[2]![1].isError, true, 'an error result is completed with isError');
      const ids = new Set([parent.toolCallId, model.toolCallId, ...inner.map((g) => g[0].toolCallId)]);
      assert.equal(ids.size, 5, 'every call has its own host id');
      const modelEvents = seen.get(model.toolCallId)!;
      assert.deepEqual(modelEvents.map((p) => p.phase), ['started', 'completed']);
      assert.ok(modelEvents.every((p) => p._meta === undefined), 'the model call in the same round carries no _meta');
      assert.deepEqual(modelEvents[0].input, { model: true });
    });

    test('a class filter and a name filter each see only their inner call; a filter matching nothing sees nothing', async () => {
      const { outcomes } = await turn(rig, `filters-${language}`, [ce(language, script('filters'))]);
      const parent = outcomes[0]!;
      assert.equal(parent.status, 'completed');
      assert.equal(summary(parent).ok, true, JSON.stringify(summary(parent)));
      await rig.barrier();
      const comms = innerCalls(rig.observers.comms, parent.toolCallId!);
      assert.deepEqual(comms.map((g) => [g[0].tool, g.map((p) => p.phase)]), [['x--send', ['started', 'completed']]]);
      assert.ok(!groups(rig.observers.comms).has(parent.toolCallId!), 'the comms filter does not see the shell parent');
      const named = innerCalls(rig.observers.named, parent.toolCallId!);
      assert.deepEqual(named.map((g) => g[0].tool), ['x--fetch']);
      assert.equal(rig.observers.none.lifecycle().length, 0);
      const all = innerCalls(rig.observers.all, parent.toolCallId!);
      const send = all.find((g) => g[0].tool === 'x--send')!;
      assert.equal(send[0].inputWithheld, true, 'comms arguments are never sent, even from a script');
      assert.equal(send[0].input, undefined);
    });

    test('a dispatch that throws after doing work is started → failed, for the unfiltered and the comms observer alike', async () => {
      const before = rig.thrown.count;
      const { outcomes } = await turn(rig, `throw-${language}`, [ce(language, script('throwing'))]);
      const parent = outcomes[0]!;
      assert.equal(summary(parent).value, 'ToolError:Tool notify failed: notify blew up after sending');
      assert.equal(rig.thrown.count, before + 1, 'the tool did its work');
      await rig.barrier();
      for (const observer of [rig.observers.all, rig.observers.comms]) {
        const inner = innerCalls(observer, parent.toolCallId!);
        assert.deepEqual(inner.map((g) => [g[0].tool, g.map((p) => p.phase)]), [['notify', ['started', 'failed']]]);
      }
    });

    test('a call still running when the script hits its time limit is reported completed once it finishes', async () => {
      const latch = join(rig.dir, `latch-${language}`);
      const { outcomes } = await turn(rig, `hold-${language}`, [ce(language, script('hold')(latch), { time_limit_ms: 1000 })]);
      const parent = outcomes[0]!;
      assert.equal(parent.status, 'completed');
      assert.equal(parent.result.isError, true);
      assert.equal(summary(parent).error.kind, 'timeout');
      // The turn's stream has ended; the inner call is still held by the provider.
      await rig.barrier();
      const held = innerCalls(rig.observers.all, parent.toolCallId!);
      assert.deepEqual(held.map((g) => g.map((p) => p.phase)), [['started']], 'open, not aborted by the stream end');
      writeFileSync(latch, '');
      await rig.observers.all.waitFor(
        () => innerCalls(rig.observers.all, parent.toolCallId!)[0]!.length === 2,
        'the held inner call reached its terminal',
      );
      const done = innerCalls(rig.observers.all, parent.toolCallId!)[0]!;
      assert.deepEqual(done.map((p) => p.phase), ['started', 'completed']);
      assert.equal(done[1].isError, false);
    });

    test('refusal sites apply to script calls: code_execution itself and a policy denial; nothing is sent', async () => {
      const { outcomes } = await turn(rig, `refuse-${language}`, [ce(language, script('refusals'))]);
      const parent = outcomes[0]!;
      assert.equal(summary(parent).ok, true, JSON.stringify(summary(parent)));
      const [recursion, policy] = summary(parent).value as string[];
      assert.match(recursion!, /^ToolError:.*code_execution.*cannot be called from a script/);
      assert.match(policy!, /^ToolError:.*forbidden by the test policy/);
      await rig.barrier();
      for (const observer of Object.values(rig.observers)) {
        assert.deepEqual(innerCalls(observer, parent.toolCallId!), [], 'refused calls produce no lifecycle event');
      }
    });

    test("an inner call's request to end the turn marks its own code_execution result, never a later one", async () => {
      const first = await turn(rig, `end-${language}`, [ce(language, script('endTurn'))]);
      assert.equal(first.outcomes[0]!.result._meta?.['agent-framework/endTurn'], true);
      const later = await turn(rig, `end-${language}`, [ce(language, script('quick'))]);
      assert.equal(summary(later.outcomes[0]!).ok, true);
      assert.equal(later.outcomes[0]!.result._meta, undefined, 'the next turn is not ended by an old request');
    });

    test("the stream's end aborts code_execution and kills its script, never the inner call it dispatched", async () => {
      const latch = join(rig.dir, `stream-latch-${language}`);
      const stream = rig.host.openStream(`stream-${language}`);
      const inferenceId = stream.beginInference();
      const pending = rig.host.dispatch({ inferenceId, name: 'code_execution', input: { code: script('hold')(latch), language } });
      await rig.observers.all.waitFor(
        () => [...groups(rig.observers.all).values()].some((g) => g[0].tool === 'x--run' && g[0].conversationId === `stream-${language}`),
        'the inner call started',
      );
      assert.equal(stream.end('the model stream ended'), 1, 'only the model call (code_execution) was aborted');
      const parent = await pending;
      assert.equal(parent.status, 'aborted');
      writeFileSync(latch, '');
      await rig.observers.all.waitFor(
        () => innerCalls(rig.observers.all, parent.toolCallId!)[0]?.length === 2,
        'the inner call reached its own terminal',
      );
      assert.deepEqual(innerCalls(rig.observers.all, parent.toolCallId!)[0]!.map((p) => p.phase), ['started', 'completed']);
      assert.deepEqual(groups(rig.observers.all).get(parent.toolCallId!)!.map((p) => p.phase), ['started', 'aborted']);
      // The runner is free again: the conversation's next execution runs.
      const next = await turn(rig, `stream-${language}`, [ce(language, script('quick'))]);
      assert.equal(summary(next.outcomes[0]!).ok, true, JSON.stringify(next.outcomes[0]!.result));
    });

    test('two same-tick executions on one runner, cold then warm: the second is refused, the first completes', async () => {
      for (const phase of ['cold', 'warm']) {
        const { outcomes } = await turn(rig, `tick-${language}`, [ce(language, script('quick')), ce(language, script('quick'))]);
        assert.equal(outcomes.length, 2, `${phase}: both calls answered`);
        const [first, second] = outcomes as [any, any];
        assert.equal(first.status, 'completed');
        assert.equal(summary(first).ok, true, `${phase}: ${JSON.stringify(first.result)}`);
        assert.equal(summary(first).value, 'run');
        assert.equal(second.status, 'completed');
        assert.equal(second.result.isError, true);
        assert.match(second.result.content[0].text, /already running/);
      }
    });
  });
}
