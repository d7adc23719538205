/**
 * A member a namespace lacks (`tools.models.lst()` where `tools.models` holds `list` and `get`)
 * is an error that names what the script read and what the namespace has, in QuickJS, V8 and
 * Python (an AttributeError there), where it used to be a bare "not a function". Valid calls
 * through the same namespaces keep working, and probes of a namespace (`await`, JSON, console)
 * still find nothing rather than throwing.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../src/runtime/js/index.ts';
import { PythonRunner } from '../../src/runtime/python/index.ts';
import type { ToolBinding } from '../../src/runtime/types.ts';
import { ENGINES } from './js/engines.ts';

const bind = (name: string, kind?: 'global'): ToolBinding => ({ name, ...(kind ? { kind } : {}), invoke: async () => name });
const TOOLS: ToolBinding[] = [
  bind('models.list'), bind('models.get'), bind('a.b.c'), bind('flat'),
  bind('store.list', 'global'), bind('store.get', 'global'),
  ...Array.from({ length: 12 }, (_, i) => bind(`many.item${i}`)),
];

/** A script line (JavaScript and Python spell these the same) and the message it must fail with. */
const CASES: Array<{ title: string; code: string; message: string; py?: string }> = [
  {
    title: 'a missing member of a tool namespace',
    code: 'await tools.models.lst()',
    message: 'tools.models.lst is not a tool; tools.models has: list, get',
    py: 'tools.models.lst is not a tool; tools.models has: get, list',
  },
  { title: 'a missing member two levels down', code: 'await tools.a.b.d()', message: 'tools.a.b.d is not a tool; tools.a.b has: c' },
  { title: 'a missing namespace inside a namespace', code: 'await tools.a.x.c()', message: 'tools.a.x is not a tool; tools.a has: b' },
  { title: 'a missing member of a global namespace', code: 'await store.lst()', message: 'store.lst is not a tool; store has: list, get' },
  {
    title: 'a large namespace names the closest members and its size',
    code: 'await tools.many.item99()',
    message: 'tools.many.item99 is not a tool; tools.many has 12 members, closest: item9, item0, item1',
  },
];

describe('missing namespace members name what exists', () => {
  for (const engine of ENGINES) {
    const runtime = new JsRuntime({ engine });
    after(() => runtime.close());
    for (const c of CASES) {
      test(`${engine}: ${c.title}`, async () => {
        const result = await runtime.execute(`const x = 1;\n${c.code};`, { tools: TOOLS });
        assert.ok(!result.ok, 'the script fails');
        assert.equal(result.error.name, 'TypeError');
        assert.equal(result.error.message, c.message);
        assert.match(result.error.stack ?? '', /script\.js:2\b/, 'names the line');
      });
    }

    test(`${engine}: a misspelt namespace is among the closest names`, async () => {
      const result = await runtime.execute('await tools.modls.list();', { tools: TOOLS });
      assert.ok(!result.ok);
      assert.match(result.error.message, /^tools\.modls is not a tool\. Closest: tools\.models,/);
    });

    test(`${engine}: valid calls and probes of a namespace still work`, async () => {
      const result = await runtime.execute(
        `console.log(tools.models);
         const probes = [await tools.models, JSON.stringify(tools.models), 'list' in tools.models, 'lst' in tools.models, typeof tools.models[Symbol.iterator]];
         return [await tools.models.list(), await store.get(), await tools.a.b.c(), ...probes];`,
        { tools: TOOLS },
      );
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.value, ['models.list', 'store.get', 'a.b.c', {}, '{}', true, false, 'undefined']);
      assert.equal(result.logs[0]!.message, '{ list: [Function models.list], get: [Function models.get] }');
    });

    test(`${engine}: the error can be caught like any TypeError`, async () => {
      const result = await runtime.execute(
        'try { await tools.models.lst(); } catch (e) { return [e instanceof TypeError, e.message]; }',
        { tools: TOOLS },
      );
      assert.ok(result.ok);
      assert.deepEqual(result.value, [true, 'tools.models.lst is not a tool; tools.models has: list, get']);
    });
  }

  const runner = new PythonRunner({});
  after(() => runner.close());
  for (const c of CASES) {
    test(`python: ${c.title}`, async () => {
      const result = await runner.run(`x = 1\n${c.code}`, { tools: TOOLS, timeoutMs: 10_000 });
      assert.ok(!result.ok, 'the script fails');
      const text = `${result.error?.message ?? ''}\n${result.error?.stack ?? ''}`;
      assert.ok(text.includes(c.py ?? c.message), text);
      assert.match(result.error?.stack ?? '', /line 2\b/, 'names the line');
    });
  }

  test('python: a misspelt namespace is among the closest names', async () => {
    const result = await runner.run('await tools.modls.list()', { tools: TOOLS, timeoutMs: 10_000 });
    assert.ok(!result.ok);
    assert.match(result.error?.message ?? '', /No tool named 'modls'\. Closest: tools\.models,/);
  });

  test('python: the error is an AttributeError, and a name that is both a tool and a namespace says so too', async () => {
    const tools = [bind('ns'), bind('ns.top'), bind('g', 'global'), bind('g.sub', 'global')];
    const result = await runner.run(
      `out = [await tools.ns(), await tools.ns.top(), await g(), await g.sub()]
for probe in ("tools.models.lst", "tools.ns.tpo", "g.sbu"):
    try:
        eval(probe, {"tools": tools, "g": g})
    except AttributeError as e:
        out.append(str(e))
print(out)`,
      { tools: [...TOOLS, ...tools], timeoutMs: 10_000 },
    );
    assert.ok(result.ok, JSON.stringify(result.error));
    assert.equal(
      result.stdout?.trim(),
      String.raw`['ns', 'ns.top', 'g', 'g.sub', 'tools.models.lst is not a tool; tools.models has: get, list', 'tools.ns.tpo is not a tool; tools.ns has: top', 'g.sbu is not a tool; g has: sub']`,
    );
  });
});
