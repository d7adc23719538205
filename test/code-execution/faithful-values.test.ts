/**
 * Values and idioms as models write them (issue 44, item 1), through the public path
 * (ToolHost + code_execution) in QuickJS, V8 and Python: a value JSON cannot hold gets its
 * documented form and the envelope's `converted` says so (never a silent `{}`, never the repr of
 * the whole value); `ToolError` exists in JavaScript; `asyncio.run(...)` and the `__main__` guard
 * work; a runtime error carries the script's line.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';

interface Envelope {
  ok: boolean;
  value?: unknown;
  stdout?: string;
  converted?: { kind: string; as: string; count: number }[];
  error?: { name?: string; message: string; line?: number; column?: number };
}

function rig(engine: 'quickjs' | 'v8') {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'boom', description: 'Always fails', inputSchema: { type: 'object' }, handler: async () => { throw new Error('the tool failed'); } });
  host.registerTool({ name: 'echo', description: 'Returns its arguments', inputSchema: { type: 'object' }, handler: async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }) });
  host.registerTool({ name: 'three', description: 'Says 3', inputSchema: { type: 'object' }, handler: async () => textResult('3') });
  host.registerTool({ name: 'echo_raw', description: 'Answers its t argument as text', inputSchema: { type: 'object' }, handler: async (args) => textResult(String((args as { t?: unknown }).t)) });
  const ce: CodeExecution = registerCodeExecution(host, { engine });
  let n = 0;
  async function run(code: string, language: 'javascript' | 'python' = 'javascript'): Promise<Envelope> {
    const inferenceId = host.beginInference({ conversationId: `c${++n}` });
    const out = await host.dispatch({ inferenceId, name: 'code_execution', input: { code, language } });
    assert.equal(out.status, 'completed', JSON.stringify(out).slice(0, 500));
    return (out as unknown as { result: { structuredContent: Envelope } }).result.structuredContent;
  }
  return { host, ce, run, close: async () => { await ce.close(); await host.close(); } };
}

const kinds = (env: Envelope) => (env.converted ?? []).map((c) => `${c.kind}->${c.as}x${c.count}`).sort();

for (const engine of ['quickjs', 'v8'] as const) {
  describe(`JavaScript values (${engine})`, () => {
    let r: ReturnType<typeof rig>;
    before(() => { r = rig(engine); });
    after(() => r.close());

    test('a Map with string keys becomes an object, other keys [key, value] pairs; a Set an array', async () => {
      const env = await r.run('return { m: new Map([["a", 1], ["b", [2]]]), n: new Map([[1, "x"]]), s: new Set([3, 4]) }');
      assert.deepEqual(env.value, { m: { a: 1, b: [2] }, n: [[1, 'x']], s: [3, 4] });
      assert.deepEqual(kinds(env), ['Map->array of [key, value] pairsx1', 'Map->objectx1', 'Set->arrayx1']);
    });

    test('BigInt becomes a number when exact, else its decimal text; NaN and Infinity their names', async () => {
      const env = await r.run('return [10n, 2n ** 70n, NaN, Infinity, -Infinity, 1.5]');
      assert.deepEqual(env.value, [10, '1180591620717411303424', 'NaN', 'Infinity', '-Infinity', 1.5]);
      assert.deepEqual(kinds(env), ['-Infinity->stringx1', 'BigInt->numberx1', 'BigInt->stringx1', 'Infinity->stringx1', 'NaN->stringx1']);
    });

    test('a class instance keeps its own fields; an Error gives its name and message', async () => {
      const env = await r.run('class Point { constructor() { this.x = 1; this.y = 2 } }\nreturn { p: new Point(), e: new RangeError("too far") }');
      assert.deepEqual(env.value, { p: { x: 1, y: 2 }, e: { name: 'RangeError', message: 'too far' } });
      assert.deepEqual(kinds(env), ['Error->object { name, message }x1']);
    });

    test('a Map passed to a tool arrives as an object', async () => {
      const env = await r.run('return await tools.echo({ m: new Map([["k", 1]]) })');
      assert.deepEqual(env.value, { m: { k: 1 } });
    });

    test('plain JSON data is returned as it is, with no converted field', async () => {
      const env = await r.run('return { a: [1, "two", null, true], d: new Date(0) }');
      assert.deepEqual(env.value, { a: [1, 'two', null, true], d: '1970-01-01T00:00:00.000Z' });
      assert.equal(env.converted, undefined);
    });

    test('a failed tool call is an instance of ToolError, which scripts cannot patch', async () => {
      const env = await r.run('let caught\ntry { await tools.boom({}) } catch (e) { caught = e }\nlet patched = true\ntry { ToolError.prototype.x = 1; patched = ToolError.prototype.x === 1 } catch { patched = false }\nreturn [caught instanceof ToolError, caught instanceof Error, caught.name, patched]');
      assert.deepEqual(env.value, [true, true, 'ToolError', false]);
    });

    test("a runtime error names the script's line and column", async () => {
      const env = await r.run('const a = 1;\nconst b = null;\nb.x;\nreturn a');
      assert.equal(env.ok, false);
      assert.equal(env.error!.line, 3);
      assert.ok(Number.isInteger(env.error!.column), JSON.stringify(env.error));
    });
  });
}

describe('Python values', () => {
  let r: ReturnType<typeof rig>;
  before(() => { r = rig('quickjs'); });
  after(() => r.close());

  test('set, datetime, Decimal, dataclass and NaN are converted one by one, the rest kept', async () => {
    const code = [
      'import datetime, decimal, math',
      'from dataclasses import dataclass',
      '@dataclass',
      'class P:',
      '    x: int',
      '{"s": {3, 1, 2}, "t": (1, 2), "when": datetime.datetime(2020, 1, 2, 3, 4, 5), "day": datetime.date(2020, 1, 2),',
      ' "price": decimal.Decimal("1.50"), "ps": [P(1), P(2)], "nan": math.nan, "ok": 1}',
    ].join('\n');
    const env = await r.run(code, 'python');
    assert.deepEqual(env.value, { s: [1, 2, 3], t: [1, 2], when: '2020-01-02T03:04:05', day: '2020-01-02', price: '1.50', ps: [{ x: 1 }, { x: 2 }], nan: 'NaN', ok: 1 });
    assert.deepEqual(kinds(env), ['Decimal->stringx1', 'NaN->stringx1', 'P (dataclass)->objectx2', 'date->ISO 8601 stringx1', 'datetime->ISO 8601 stringx1', 'set->arrayx1']);
  });

  test("a tool's JSON text reaches Python as its value, text that merely looks like JSON as text (json-text.ts)", async () => {
    const env = await r.run('a = await tools.echo({"k": [1, "two"], "u": "ü"})\nb = await tools.echo_raw({"t": "[not json"})\n{"a": a, "b": b, "ta": type(a).__name__}', 'python');
    assert.deepEqual(env.value, { a: { k: [1, 'two'], u: 'ü' }, b: '[not json', ta: 'dict' });
  });

  test('a pydantic-style object is dumped; an unknown object becomes its own repr only', async () => {
    const code = [
      'class Model:',
      '    def model_dump(self):',
      '        return {"id": 7}',
      'class Opaque:',
      '    def __repr__(self):',
      '        return "Opaque()"',
      '[Model(), Opaque(), 5]',
    ].join('\n');
    const env = await r.run(code, 'python');
    assert.deepEqual(env.value, [{ id: 7 }, 'Opaque()', 5]);
    assert.deepEqual(kinds(env), ['Model->object (model_dump())x1', 'Opaque->string (repr)x1']);
  });

  test('asyncio.run(main()) works inside the running loop, its value returned', async () => {
    const env = await r.run('import asyncio\nasync def main():\n    return await tools.three()\nasyncio.run(main())', 'python');
    assert.equal(env.ok, true, JSON.stringify(env));
    assert.equal(env.value, 3); // a plain-number text result is given as a number (learned-shapes.ts)
  });

  test('the __main__ guard with asyncio.run runs main once', async () => {
    const env = await r.run('import asyncio\nasync def main():\n    print("hi")\nif __name__ == "__main__":\n    asyncio.run(main())', 'python');
    assert.equal(env.ok, true, JSON.stringify(env));
    assert.equal(env.stdout, 'hi\n');
  });

  test("a runtime error names the script's line", async () => {
    const env = await r.run('a = 1\nb = None\nb.x', 'python');
    assert.equal(env.ok, false);
    assert.equal(env.error!.line, 3);
  });
});

// The result's text is written from the JSON text the sandbox returned (src/runtime/json-text.ts),
// not from the host's own serialization of the parsed value: both must say the same thing, to
// the character, for the values where engines could differ (number forms, escapes, key order).
for (const engine of ['quickjs', 'v8'] as const) {
  describe(`the result's text is the value's own serialization (${engine})`, () => {
    let r: ReturnType<typeof rig>;
    before(() => { r = rig(engine); });
    after(() => r.close());

    test('numbers, escapes, lone surrogates and integer keys read the same in the text and the object', async () => {
      const code = `return {
        b: 1, 2: 'two', 10: 'ten', '-1': 'minus', 4294967295: 'big index',
        nums: [0.1, 1e21, 1e-7, 123456789012345680000, -0, 5e-324, 1.7976931348623157e308, 2 ** 53 + 2, 0.000001, 1 / 3],
        text: 'q"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\\u2028\\u2029é😀\\ud800x\\udc00',
        nested: { a: [[], {}, [null, true, false]], __proto__x: 1 },
        echoed: await tools.echo({ s: '\\ud83d', n: 1e300 }),
      };`;
      const inferenceId = r.host.beginInference({ conversationId: `text-${engine}` });
      const out = await r.host.dispatch({ inferenceId, name: 'code_execution', input: { code } });
      const result = (out as unknown as { result: { content: { text: string }[]; structuredContent: Envelope } }).result;
      assert.equal(result.structuredContent.ok, true, JSON.stringify(result.structuredContent));
      assert.equal(result.content[0]!.text, JSON.stringify(result.structuredContent));
      const value = result.structuredContent.value as { nums: number[]; text: string };
      assert.deepEqual(value.nums, [0.1, 1e21, 1e-7, 123456789012345680000, 0, 5e-324, 1.7976931348623157e308, 2 ** 53 + 2, 0.000001, 1 / 3]);
      assert.equal(value.text, 'q"b\\s/\b\f\n\r\t\u0001\u001f\u007f\u2028\u2029é😀\ud800x\udc00');
    });
  });
}
