/**
 * Every script error names the user's line and no frame of toolcell's own code: a table of
 * broken scripts (syntax, runtime and uncaught tool errors) run on QuickJS, V8 and Python.
 * An uncaught tool error names the line of its call under QuickJS too (the prelude records it
 * with every call), in a loop, a nested async function and a Promise.all.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../src/runtime/js/index.ts';
import { PythonRunner } from '../../src/runtime/python/index.ts';
import type { ToolBinding } from '../../src/runtime/types.ts';
import { ENGINES } from './js/engines.ts';

const FORBIDDEN = /toolcell|bootstrap|ast\.py|prelude|main\.mjs|vm\.mjs|node:|script_tools/;

const failing: ToolBinding = {
  name: 'bad.tool',
  invoke: async () => {
    const error = new Error('boom');
    error.name = 'ToolError';
    throw error;
  },
};
const fine: ToolBinding = { name: 'ok', invoke: async () => 1 };

/**
 * Broken scripts and the line each error must name. A tool error names the line that called
 * the tool: QuickJS records it with the call; V8 names the lines awaiting it, so where the two
 * differ (the calls inside a multi-line Promise.all) `v8Line` says which line V8 names.
 */
const JS: Array<{ title: string; code: string; line: number; v8Line?: number }> = [
  { title: 'syntax: missing operand', code: 'let x = 1;\nlet y = ;', line: 2 },
  { title: 'syntax: unclosed brace', code: 'const a = 1;\nif (a) {\n  a;', line: 3 },
  { title: 'syntax: bad token', code: 'const a = 1;\n\nconst b = @;', line: 3 },
  { title: 'reference error', code: 'const a = 1;\nmissing + 1;', line: 2 },
  { title: 'null property', code: 'const a = null;\n\na.b;', line: 3 },
  { title: 'thrown error in a function', code: 'function f() {\n  throw new Error("x");\n}\nf();', line: 2 },
  { title: 'not a function', code: 'const o = {};\no.f();', line: 2 },
  { title: 'uncaught tool error', code: 'const a = 1;\n\nawait tools.bad.tool({});', line: 3 },
  { title: 'uncaught tool error on the first line', code: 'await tools.ok();  await tools.bad.tool({});', line: 1 },
  { title: 'tool error through a helper', code: 'async function g() {\n  return await tools["bad.tool"]({});\n}\nawait g();', line: 2 },
  {
    title: 'tool error in a loop',
    code: 'for (let i = 0; i < 3; i++) {\n  await tools.ok();\n  if (i === 2) await tools.bad.tool({ i });\n}',
    line: 3,
  },
  {
    title: 'tool error in a nested async function',
    code: 'async function outer() {\n  async function inner() {\n    const r = await tools.bad.tool({});\n    return r;\n  }\n  return await inner();\n}\nawait outer();',
    line: 3,
  },
  {
    title: 'tool error in Promise.all',
    code: 'const a = 1;\nawait Promise.all([\n  tools.ok(),\n  tools.bad.tool({}),\n]);',
    line: 4,
    v8Line: 2,
  },
  { title: 'unknown tool', code: 'const a = 1;\nawait tools.nope();', line: 2 },
  // The formatter is locked under both engines: a script's own cannot hide its lines.
  { title: 'runtime error after replacing the formatter', code: 'Error.prepareStackTrace = () => "mine";\nnull.x;', line: 2 },
  { title: 'tool error after replacing the formatter', code: 'Error.prepareStackTrace = () => 7 * 1048576;\nawait tools.bad.tool({});', line: 2 },
];

const PY: Array<{ title: string; code: string; line: number }> = [
  { title: 'syntax: unclosed paren', code: 'x = 1\ny = (', line: 2 },
  { title: 'syntax: bad indent', code: 'x = 1\nif x:\nprint(x)', line: 3 },
  { title: 'syntax: invalid token', code: 'a = 1\n\nb = $', line: 3 },
  { title: 'name error', code: 'a = 1\nmissing + 1', line: 2 },
  { title: 'attribute error', code: 'a = None\n\na.b', line: 3 },
  { title: 'error in a function', code: 'def f():\n    raise ValueError("x")\nf()', line: 2 },
  { title: 'library error', code: 'import json\njson.loads("{")', line: 2 },
  { title: 'uncaught tool error', code: 'a = 1\n\nawait tools.bad.tool({})', line: 3 },
  { title: 'tool error through a helper', code: 'async def g():\n    return await tools["bad.tool"]({})\nawait g()', line: 2 },
  { title: 'unknown tool', code: 'a = 1\nawait tools.nope()', line: 2 },
];

function assertClean(text: string, where: string): void {
  assert.doesNotMatch(text, FORBIDDEN, `${where}: shows toolcell's own frames:\n${text}`);
}

describe('script errors name the line and hide toolcell', () => {
  for (const engine of ENGINES) {
    const runtime = new JsRuntime({ engine });
    after(() => runtime.close());
    for (const c of JS) {
      test(`${engine}: ${c.title}`, async () => {
        const result = await runtime.execute(c.code, { tools: [failing, fine] });
        assert.ok(!result.ok);
        const text = `${result.error.message}\n${result.error.stack ?? ''}`;
        assertClean(text, c.title);
        if (/tool error/.test(c.title)) assert.match(result.error.stack ?? '', /\(raised by tools\["bad\.tool"\]\)/, `${c.title}: names the tool`);
        const line = engine === 'v8' ? c.v8Line ?? c.line : c.line;
        assert.match(result.error.stack ?? '', new RegExp(`script\\.js:${line}\\b`), `${c.title}: ${text}`);
        // The failing call's line, and no other line of the script.
        if (engine === 'quickjs' && /tool error/.test(c.title)) {
          assert.deepEqual([...(result.error.stack ?? '').matchAll(/script\.js:(\d+)/g)].map((m) => Number(m[1])), [line], text);
        }
      });
    }
  }

  const runner = new PythonRunner({});
  after(() => runner.close());
  for (const c of PY) {
    test(`python: ${c.title}`, async () => {
      const result = await runner.run(c.code, { tools: [failing], timeoutMs: 10_000 });
      assert.ok(!result.ok);
      const text = `${result.error?.message ?? ''}\n${result.error?.stack ?? ''}\n${result.stderr}`;
      assertClean(text, c.title);
      if (/tool error/.test(c.title)) assert.match(text, /\(raised by tool 'bad\.tool'\)/, `${c.title}: names the tool`);
      // Library frames below the script's call are cut too.
      assert.doesNotMatch(text, /lib\/python3|json\/decoder/, `${c.title}: ${text}`);
      assert.match(result.error?.stack ?? '', new RegExp(`File "<run \\d+>", line ${c.line}\\b`), `${c.title}: ${text}`);
    });
  }
});
