/**
 * Tool catalogs in the JavaScript sandbox (issue 13): a catalog is sent to a sandbox process
 * once and a conversation's QuickJS VM keeps its bindings installed between runs of the same
 * catalog — without one conversation ever reaching another's tools, and with the V8 engine's
 * tools, installed on first use, looking exactly like an object installed up front.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { ToolCatalog } from '../../../src/runtime/catalog.ts';
import { ENGINES } from './engines.ts';
import { errorOf, global, tool, valueOf } from './helpers.ts';

const names = (...list: string[]) => new ToolCatalog(list.map((n) => tool(n, async () => n)));

describe('tool catalogs', () => {
  for (const engine of ENGINES) {
    test(`${engine}: a catalog is sent to a process once; a new one is sent when the tools change`, async () => {
      const runtime = new JsRuntime({ engine });
      after(() => runtime.close());
      const catalog = names('a', 'b');
      for (let i = 0; i < 3; i++) assert.equal(valueOf(await runtime.execute('return await tools.a()', { tools: catalog, conversation: 'c' })), 'a');
      assert.equal(runtime.stats().catalogsSent, 1, 'three runs, one catalog frame');
      const changed = names('a', 'c');
      assert.deepEqual(valueOf(await runtime.execute('return [await tools.c(), "b" in tools]', { tools: changed, conversation: 'c' })), ['c', false]);
      assert.equal(runtime.stats().catalogsSent, 2);
      // Back to the first: the process still holds it.
      assert.equal(valueOf(await runtime.execute('return "b" in tools', { tools: catalog, conversation: 'c' })), true);
      assert.equal(runtime.stats().catalogsSent, 2);
    });
  }

  for (const engine of ENGINES) {
    test(`${engine}: a process holds a bounded number of catalogs; one it was told to drop is sent again`, async () => {
      const runtime = new JsRuntime({ engine });
      after(() => runtime.close());
      const catalogs = Array.from({ length: 10 }, (_, i) => names(`t${i}`));
      for (const [i, catalog] of catalogs.entries()) {
        assert.equal(valueOf(await runtime.execute(`return await tools.t${i}()`, { tools: catalog, conversation: 'c' })), `t${i}`);
      }
      assert.equal(runtime.stats().catalogsSent, 10);
      // The most recent ones are still held; the oldest was dropped and comes again.
      assert.equal(valueOf(await runtime.execute('return await tools.t9()', { tools: catalogs[9]!, conversation: 'c' })), 't9');
      assert.equal(runtime.stats().catalogsSent, 10);
      assert.equal(valueOf(await runtime.execute('return await tools.t0()', { tools: catalogs[0]!, conversation: 'c' })), 't0');
      assert.equal(runtime.stats().catalogsSent, 11);
    });
  }

  test('arrays of bindings of the same shape share a catalog id: not sent again', async () => {
    const runtime = new JsRuntime();
    after(() => runtime.close());
    for (let i = 0; i < 3; i++) {
      const result = await runtime.execute('return await tools.x()', { tools: [tool('x', async () => i)], conversation: 'c' });
      assert.equal(valueOf(result), i, 'each run calls its own array\'s binding');
    }
    assert.equal(runtime.stats().catalogsSent, 1);
    assert.equal(runtime.stats().catalogInstalls, 1);
  });

  test('quickjs: a conversation\'s VM keeps its bindings between runs of one catalog, installs again on a change or reset', async () => {
    const runtime = new JsRuntime();
    after(() => runtime.close());
    const catalog = names('a', 'b');
    const run = (code: string, tools = catalog, reset = false) => runtime.execute(code, { tools, conversation: 'c', reset });
    valueOf(await run('globalThis.kept = tools; return 1'));
    assert.equal(valueOf(await run('return kept === tools')), true, 'the same tools object: nothing was installed again');
    assert.equal(runtime.stats().catalogInstalls, 1);
    // A script that deletes or replaces its `tools` gets them back at the next run.
    valueOf(await run('delete globalThis.tools; globalThis.tools = 5; return 1'));
    assert.deepEqual(valueOf(await run('return [typeof tools.a, kept === tools]')), ['function', true]);
    assert.equal(runtime.stats().catalogInstalls, 1);

    const changed = names('a', 'c');
    assert.deepEqual(valueOf(await run('return [kept === tools, typeof kept.b, "b" in tools, await tools.c()]', changed)), [false, 'function', false, 'c']);
    assert.equal(runtime.stats().catalogInstalls, 2);
    // A function kept from the earlier catalog names a tool this run does not have.
    const stale = errorOf(await run('return await kept.b()', changed));
    assert.match(stale.message, /b is no longer a tool/);
    valueOf(await run('return 1', changed, true));
    assert.equal(runtime.stats().catalogInstalls, 3, 'a reset starts a fresh VM, which installs the tools');
  });

  test('quickjs: conversations in one process never reach each other\'s tools', async () => {
    const runtime = new JsRuntime({ pool: { maxProcesses: 1 } });
    after(() => runtime.close());
    const left = names('left_only', 'both');
    const right = names('right_only', 'both');
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(valueOf(await runtime.execute('return Object.keys(tools)', { tools: left, conversation: 'L' })), ['left_only', 'both']);
      assert.deepEqual(valueOf(await runtime.execute('return Object.keys(tools)', { tools: right, conversation: 'R' })), ['right_only', 'both']);
      assert.match(errorOf(await runtime.execute('return tools.right_only', { tools: left, conversation: 'L' })).message, /not a tool/);
    }
    assert.equal(runtime.stats().processesStarted, 1, 'both conversations lived in one process');
    assert.equal(runtime.stats().catalogsSent, 2);
  });

  test('v8: tools installed on first use behave as the object QuickJS installs up front', async () => {
    const runtime = new JsRuntime({ engine: 'v8' });
    const eager = new JsRuntime({ engine: 'quickjs' });
    after(() => Promise.all([runtime.close(), eager.close()]));
    const catalog = new ToolCatalog([
      tool('plain', async () => 'plain'), tool('x--y', async () => 'x--y'), tool('7', async () => '7'),
      tool('ns', async () => 'ns'), tool('ns.inner', async () => 'ns.inner'), tool('a.b', async () => 'a.b'),
      global('helper', async () => 'helper'),
    ]);
    const script = `
      'use strict';
      const before = { plain: 'plain' in tools, missing: 'missing' in tools, alias: Object.getOwnPropertyDescriptor(tools, 'x__y')?.enumerable };
      const attempts = [];
      for (const attempt of [() => { tools.plain = 1; }, () => { tools.added = 1; }, () => { delete tools.plain; },
        () => Object.defineProperty(tools, 'z', { value: 1 }), () => Object.setPrototypeOf(tools, {})]) {
        try { attempt(); attempts.push('allowed'); } catch (e) { attempts.push(e.name); }
      }
      return {
        before,
        keys: Object.keys(tools),
        own: Reflect.ownKeys(tools),
        frozen: Object.isFrozen(tools) && Object.isFrozen(tools.plain),
        same: tools.x__y === tools['x--y'] && tools.ns.inner === tools['ns.inner'],
        called: [await tools.x__y(), await tools.ns(), await tools.ns.inner(), await tools.a.b(), await helper()],
        attempts,
        deleteMissing: delete tools.missing,
        unknown: (() => { try { return tools.plian; } catch (e) { return e.message; } })(),
      };`;
    const value = valueOf(await runtime.execute(script, { tools: catalog })) as Record<string, unknown>;
    assert.deepEqual(value, valueOf(await eager.execute(script, { tools: catalog })), 'the same answers as QuickJS, whose tools are installed up front');
    assert.deepEqual(value.before, { plain: true, missing: false, alias: false });
    assert.deepEqual(value.keys, ['7', 'plain', 'x--y', 'ns', 'ns.inner', 'a.b']);
    assert.deepEqual(value.own, ['7', 'plain', 'x--y', 'ns', 'ns.inner', 'a.b', 'x__y', '_7', 'a']);
    assert.equal(value.frozen, true);
    assert.equal(value.same, true);
    assert.deepEqual(value.called, ['x--y', 'ns', 'ns.inner', 'a.b', 'helper']);
    assert.deepEqual(value.attempts, ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError']);
    assert.equal(value.deleteMissing, true);
    assert.match(value.unknown as string, /tools\.plian is not a tool\. Closest: tools\.plain/);
  });
});
