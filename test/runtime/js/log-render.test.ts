/**
 * Console arguments are rendered inside the guest by a bounded, cycle-safe inspector (issue 14):
 * cycles, Maps, Sets, errors, deep and long values come out readable and bounded, under both
 * engines, and only the rendered text crosses to the host.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { ENGINES } from './engines.ts';

for (const engine of ENGINES) {
  describe(`${engine} engine`, () => {
    const runtime = new JsRuntime({ engine });
    after(() => runtime.close());

    const logsOf = async (code: string): Promise<string[]> => {
      const result = await runtime.execute(code, { tools: [] });
      assert.equal(result.ok, true, JSON.stringify(result));
      return result.logs.map((l) => l.message);
    };

    test('a cyclic object shows its content and [Circular], not [object Object]', async () => {
      const [line] = await logsOf('const a = { name: "a", list: [1, 2] }; a.self = a; a.list.push(a); console.log(a);');
      assert.equal(line, "{ name: 'a', list: [ 1, 2, [Circular] ], self: [Circular] }");
    });

    test('Maps, Sets and errors show their entries, name and message', async () => {
      const [line] = await logsOf(
        'console.log(new Map([["k", { v: 1 }]]), new Set([1, "two"]), { err: new TypeError("bad input") }, new Map());',
      );
      assert.equal(line, "Map(1) { 'k' => { v: 1 } } Set(2) { 1, 'two' } { err: [TypeError: bad input] } Map(0) {}");
    });

    test('deep, long and wide values are elided and the line stays bounded', async () => {
      const [deep, long, str, wide] = await logsOf(
        `let d = { leaf: 1 }; for (let i = 0; i < 50; i++) d = { d };
         console.log(d);
         console.log(Array.from({ length: 100000 }, (_, i) => i));
         console.log({ s: "x".repeat(50000) });
         const w = {}; for (let i = 0; i < 5000; i++) w["key" + i] = "v".repeat(100); console.log(w);`,
      );
      assert.equal(deep, '{ d: { d: { d: [Object] } } }');
      assert.match(long!, /^Array\(100000\) \[ 0, 1, 2, .*, 99, \.\.\. 99900 more items \]$/);
      assert.match(str!, /^\{ s: 'x{10000}'… 40000 more characters \}$/);
      assert.ok(wide!.length <= 16_500, `wide object rendered to ${wide!.length} characters`);
      assert.match(wide!, /^\{ key0: 'v+', key1: /);
    });

    test('getters are not run, class names and null prototypes are shown', async () => {
      const [line] = await logsOf(
        'let ran = false; class Point { constructor() { this.x = 1; } } console.log({ get g() { ran = true; return 1; } }, new Point(), Object.create(null)); if (ran) throw new Error("getter ran");',
      );
      assert.equal(line, '{ g: [Getter] } Point { x: 1 } [Object: null prototype] {}');
    });
  });
}
