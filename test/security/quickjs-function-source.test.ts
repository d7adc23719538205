/**
 * Issue 19, item 7, under QuickJS: a tool or helper function's source text is the prelude's
 * own (`(args) => invoke(...)`) unless the prelude hides it, so `String(tools.x)` and a
 * construct error would show the script how its bridge is called. They must read like native
 * functions, keep their `name` and `length`, and a failed call must still name the line of the
 * script that made it (the prelude records it from the function's own frame).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { JsRuntime } from '../../src/runtime/js/index.ts';
import type { ToolBinding } from '../../src/runtime/types.ts';

// The thread engine (the default) and the sandbox processes evaluate the same prelude.
const runtimes = [new JsRuntime({ engine: 'quickjs' }), new JsRuntime({ engine: 'quickjs', quickjsThreads: false, isolation: 'none' })];
after(async () => {
  for (const runtime of runtimes) await runtime.close();
});

const tools: ToolBinding[] = [
  { name: 'echo', invoke: async (a: unknown) => a },
  { name: 'fail', invoke: async () => { throw new TypeError('host side failure'); } },
  { name: 'describe', kind: 'global', invoke: async (a: unknown) => a },
];

for (const [i, runtime] of runtimes.entries()) {
  const where = i === 0 ? 'threads' : 'processes';
  test(`quickjs (${where}): a tool function's source text is not the prelude's, in String() nor in a construct error`, async () => {
    const r = await runtime.execute(
      "let message = ''; try { new tools.echo() } catch (e) { message = e.message } let message2 = ''; try { Reflect.construct(describe, []) } catch (e) { message2 = e.message } " +
        'return { text: String(tools.echo), global: String(describe), fnText: Function.prototype.toString.call(tools.echo), message, message2, name: tools.echo.name, globalName: describe.name, length: tools.echo.length }',
      { tools, timeoutMs: 10_000 },
    );
    assert.ok(r.ok, JSON.stringify(r));
    const value = r.value as Record<string, string | number>;
    for (const key of ['text', 'global', 'fnText', 'message', 'message2']) {
      assert.doesNotMatch(String(value[key]), /invoke|isGlobal|label|=>/, `${key}: ${value[key]}`);
    }
    assert.match(String(value.text), /native code/);
    assert.equal(value.name, 'echo');
    assert.equal(value.globalName, 'describe');
    assert.equal(value.length, 1);
  });

  test(`quickjs (${where}): a failed call still names the script line that made it`, async () => {
    const r = await runtime.execute("const x = 1;\nawait tools.fail({});", { tools, timeoutMs: 10_000 });
    assert.ok(!r.ok);
    const stack = r.error.stack ?? '';
    assert.match(stack, /at script\.js:2:\d+/, stack);
    assert.match(stack, /\(raised by tools\.fail\)/, stack);
  });
}
