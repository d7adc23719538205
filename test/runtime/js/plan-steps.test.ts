/**
 * A large tool catalog is planned in steps (issue 46 item 5): the first run after a change of
 * 10,000 tools used to plan them in one 40–60 ms step of the host's event loop. Pinned by
 * counting work per step, never by a clock: each step of the plan handles at most PLAN_CHUNK
 * bindings, a stepped plan is the plan a one-step one gives, and the runtime lets the event
 * loop turn while it plans a large catalog.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { ToolCatalog } from '../../../src/runtime/catalog.ts';
import { PLAN_CHUNK, planBindings, planBindingsInSteps, planSteps } from '../../../src/runtime/js/bindings.ts';
import { global, tool, valueOf } from './helpers.ts';

function bindings(count: number) {
  const list = Array.from({ length: count }, (_, i) => tool(`srv${i % 7}--t.${i % 3}-${i}`, async () => i));
  return [...list, tool('a.b', async () => 'ab'), tool('a_b', async () => 'a_b'), tool('a-b', async () => 'a-b'), global('image', async () => 'img'), global('m.get-one', async () => 1)];
}

describe('planning a catalog in steps', () => {
  test('no step handles more than PLAN_CHUNK bindings, and the stepped plan equals the one-step plan', async () => {
    const list = bindings(4 * PLAN_CHUNK + 17);
    let steps = 0;
    const stepped = await planBindingsInSteps(list, 9, async () => {
      steps += 1;
    });
    const whole = planBindings(list, 9);
    assert.equal(stepped.config, whole.config);
    assert.deepEqual([...stepped.tools.keys()], [...whole.tools.keys()]);
    assert.deepEqual([...stepped.globals.keys()], [...whole.globals.keys()]);
    // Four passes over the bindings (check, claim, settle, write), each in chunks.
    assert.ok(steps >= 4 * Math.floor(list.length / PLAN_CHUNK), `${steps} steps`);
    // Work units between two yields, counted by a tiny chunk: never more than the chunk.
    for (const chunk of [1, 3, 50]) {
      const g = planSteps(list.slice(0, 200), 1, chunk);
      let yields = 0;
      while (!g.next().done) yields += 1;
      assert.ok(yields >= Math.floor((3 * 200) / chunk), `chunk ${chunk}: ${yields} yields`);
    }
  });

  test('a bad binding is refused by the stepped plan as by the one-step plan', async () => {
    const list = [...bindings(PLAN_CHUNK * 2), global('Math.max', async () => 1)];
    await assert.rejects(planBindingsInSteps(list), /would shadow the built-in Math/);
    assert.throws(() => planBindings(list), /would shadow the built-in Math/);
  });

  test('the runtime lets the event loop turn while it plans a large catalog, and the run calls its tools', async () => {
    const runtime = new JsRuntime();
    after(() => runtime.close());
    const warm = new ToolCatalog([tool('w', async () => 'w')]);
    assert.equal(valueOf(await runtime.execute('return await tools.w()', { tools: warm, conversation: 'c' })), 'w');
    // The first binding's name and the last one's are read by the plan's first pass: counted
    // turns of the event loop in between show whether the plan let the loop run (a plan made
    // in one step reads them all in the same turn).
    let turns = 0;
    let running = true;
    const tick = () => {
      turns += 1;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const list = bindings(5 * PLAN_CHUNK);
    const seen: number[] = [];
    for (const at of [0, list.length - 1]) {
      const binding = list[at]!;
      const name = binding.name;
      list[at] = Object.defineProperty({ ...binding }, 'name', { get: () => (seen.push(turns), name), enumerable: true });
    }
    const catalog = new ToolCatalog(list);
    const k = 5 * PLAN_CHUNK - 2;
    const result = await runtime.execute(`return [await tools["srv${k % 7}--t.${k % 3}-${k}"](), await tools.a.b(), await tools.a_b()]`, { tools: catalog, conversation: 'c' });
    running = false;
    assert.deepEqual(valueOf(result), [k, 'ab', 'a_b']);
    assert.ok(seen.length >= 2);
    assert.ok(seen.at(-1)! - seen[0]! >= 4, `turns between the first and the last binding read: ${seen.join(', ')}`);
  });
});
