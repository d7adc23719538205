/**
 * Every script error names the user's line and no frame of toolcell's own code: a table of
 * broken scripts (syntax, runtime and uncaught tool errors) run on QuickJS, V8 and Python.
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

/**
 * Broken scripts and the line each error must name (a tool error: the line awaiting the call).
 * QuickJS keeps no async stacks, so its tool errors carry the message only (`noLineOnQuickjs`).
 */
const JS: Array<{ title: string; code: string; line: number; noLineOnQuickjs?: boolean }> = [
  { title: 'syntax: missing operand', code: 'let x = 1;\nlet y = ;', line: 2 },
  { title: 'syntax: unclosed brace', code: 'const a = 1;\nif (a) {\n  a;', line: 3 },
  { title: 'syntax: bad token', code: 'const a = 1;\n\nconst b = @;', line: 3 },
  { title: 'reference error', code: 'const a = 1;\nmissing + 1;', line: 2 },
  { title: 'null property', code: 'const a = null;\n\na.b;', line: 3 },
  { title: 'thrown error in a function', code: 'function f() {\n  throw new Error("x");\n}\nf();', line: 2 },
  { title: 'not a function', code: 'const o = {};\no.f();', line: 2 },
  { title: 'uncaught tool error', code: 'const a = 1;\n\nawait tools.bad.tool({});', line: 3, noLineOnQuickjs: true },
  { title: 'tool error through a helper', code: 'async function g() {\n  return await tools["bad.tool"]({});\n}\nawait g();', line: 2, noLineOnQuickjs: true },
  { title: 'unknown tool', code: 'const a = 1;\nawait tools.nope();', line: 2 },
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
        const result = await runtime.execute(c.code, { tools: [failing] });
        assert.ok(!result.ok);
        const text = `${result.error.message}\n${result.error.stack ?? ''}`;
        assertClean(text, c.title);
        if (c.noLineOnQuickjs) assert.match(result.error.stack ?? '', /\(raised by tools\["bad\.tool"\]\)/, `${c.title}: names the tool`);
        if (engine === 'quickjs' && c.noLineOnQuickjs) return;
        assert.match(result.error.stack ?? '', new RegExp(`script\\.js:${c.line}\\b`), `${c.title}: ${text}`);
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
