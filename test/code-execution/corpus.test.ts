/**
 * The corpus of issue 20: scripts in the shapes models write them (TypeScript, fences, lone
 * functions, `export default`, a final expression without `return`), each with the value it
 * must return and the normalizations the envelope must name, run end to end through a real
 * ToolHost, code_execution and real tools, on QuickJS and V8 (and Python where the form
 * applies). Each case fails with its normalization removed (checked once per normalization).
 * Errors are checked too: positions point at the text the model wrote, a script that is not
 * JavaScript nor TypeScript gets the parser's words with its line and a caret.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';

type Lang = 'javascript' | 'python';
interface Case {
  name: string;
  code: string;
  value: unknown;
  normalized?: string[];
  language?: Lang;
}

const USER = 'const u = await tools.get_user({ id: 1 });';
const CASES: Case[] = [
  // TypeScript: every construct of the issue, alone.
  { name: 'type annotation', code: 'const u: { name: string } = await tools.get_user({ id: 1 });\nreturn u.name;', value: 'Ada', normalized: ['typescript'] },
  { name: 'interface and as', code: 'interface User { id: number; name: string }\nconst u = (await tools.get_user({ id: 1 })) as User;\nreturn u.name;', value: 'Ada', normalized: ['typescript'] },
  { name: 'type alias and generics', code: 'type Box<T> = { value: T };\nfunction box<T>(value: T): Box<T> { return { value }; }\nreturn box<string>((await tools.get_user({ id: 1 })).name).value;', value: 'Ada', normalized: ['typescript'] },
  { name: 'non-null assertion', code: 'const users: Array<{ name: string }> = [await tools.get_user({ id: 1 })];\nreturn users[0]!.name;', value: 'Ada', normalized: ['typescript'] },
  { name: 'satisfies', code: 'const args = { id: 2 } satisfies { id: number };\nreturn (await tools.get_user(args)).name;', value: 'Ada', normalized: ['typescript'] },
  { name: 'optional parameter', code: "function greet(name: string, greeting?: string): string {\n  return (greeting ?? 'hi') + ' ' + name;\n}\nreturn greet((await tools.get_user({ id: 1 })).name);", value: 'hi Ada', normalized: ['typescript'] },
  { name: 'enum', code: "enum Color { Red = 'red', Blue = 'blue' }\nconst u = await tools.get_user({ id: 1 });\nreturn Color.Blue + ':' + u.name;", value: 'blue:Ada', normalized: ['typescript'] },
  { name: 'numeric enum', code: 'enum Level { Low, High }\nreturn [Level.High, Level[0]];', value: [1, 'Low'], normalized: ['typescript'] },
  { name: 'typed catch and generic call', code: 'try {\n  return (await tools.list_ids<number[]>({})).length;\n} catch (e: unknown) {\n  return -1;\n}', value: 3, normalized: ['typescript'] },
  { name: 'namespace', code: 'namespace Util { export const twice = (n: number): number => n * 2; }\nreturn Util.twice((await tools.list_ids({})).length);', value: 6, normalized: ['typescript'] },
  { name: 'class with parameter properties, access modifiers, abstract', code: 'abstract class Named { abstract label(): string; }\nclass Person extends Named {\n  private static count: number = 0;\n  constructor(private readonly name: string, public age?: number) { super(); }\n  label(): string { return this.name; }\n}\nreturn new Person((await tools.get_user({ id: 1 })).name).label();', value: 'Ada', normalized: ['typescript'] },
  { name: 'declare, as const, typeof types', code: 'declare const later: number;\nconst ids = [1, 2, 3] as const;\ntype Id = (typeof ids)[number];\nconst pick: Id = ids[1];\nreturn pick;', value: 2, normalized: ['typescript'] },
  // Fences.
  { name: '```ts fence around TypeScript', code: '```ts\nconst u: { name: string } = await tools.get_user({ id: 1 });\nreturn u.name;\n```', value: 'Ada', normalized: ['fence', 'typescript'] },
  { name: '```javascript fence', code: '```javascript\n' + USER + '\nreturn u.name;\n```', value: 'Ada', normalized: ['fence'] },
  // A lone function.
  { name: 'lone async arrow', code: 'async () => {\n  ' + USER + '\n  return u.name;\n}', value: 'Ada', normalized: ['function'] },
  { name: 'lone async function main', code: 'async function main() {\n  ' + USER + '\n  return u.name;\n}', value: 'Ada', normalized: ['function'] },
  { name: 'lone TypeScript arrow', code: 'async (): Promise<string> => {\n  const u: { name: string } = await tools.get_user({ id: 1 });\n  return u.name;\n}', value: 'Ada', normalized: ['typescript', 'function'] },
  // export default.
  { name: 'export default async function main', code: 'export default async function main() {\n  ' + USER + '\n  return u.name;\n}', value: 'Ada', normalized: ['export-default'] },
  { name: 'export default async arrow', code: 'export default async () => (await tools.get_user({ id: 1 })).name;', value: 'Ada', normalized: ['export-default'] },
  { name: 'export default TypeScript function', code: 'export default async function main(): Promise<string> {\n  const u: { name: string } = await tools.get_user({ id: 1 });\n  return u.name;\n}', value: 'Ada', normalized: ['typescript', 'export-default'] },
  { name: 'export default after helpers', code: 'const shout = (s) => s.toUpperCase();\nexport default async () => shout((await tools.get_user({ id: 1 })).name);', value: 'ADA', normalized: ['export-default'] },
  // A final expression.
  { name: 'final member expression', code: USER + '\nu.name', value: 'Ada', normalized: ['final-expression'] },
  { name: 'final await', code: 'await tools.list_ids({})', value: [1, 2, 3], normalized: ['final-expression'] },
  { name: 'final object in parentheses', code: 'const count = (await tools.list_ids({})).length;\n({ count })', value: { count: 3 }, normalized: ['final-expression'] },
  { name: 'final expression after TypeScript', code: 'const u: { name: string } = await tools.get_user({ id: 1 });\nu.name;', value: 'Ada', normalized: ['typescript', 'final-expression'] },
  // A script with a top-level return anywhere, even one not reached, returns only what its returns return.
  { name: 'an explicit return wins', code: "if ((await tools.list_ids({})).length > 0) {\n  return 'early';\n}\n'late'", value: 'early' },
  { name: 'an explicit return wins even when not reached', code: "if ((await tools.list_ids({})).length > 5) {\n  return 'many';\n}\n'few'", value: undefined },
  { name: 'a return inside a loop counts', code: "for (const id of await tools.list_ids({})) {\n  if (id === 9) return 'nine';\n}\n'none'", value: undefined },
  { name: 'a final declaration returns nothing', code: USER, value: undefined },
  { name: 'a return inside a function is not the script\'s', code: 'const f = () => { return 1; };\nf() + 1', value: 2, normalized: ['final-expression'] },
  // Python: the fence applies; its final expression is its own.
  { name: '```python fence', language: 'python', code: '```python\nu = await tools.get_user({"id": 1})\nu["name"]\n```', value: 'Ada', normalized: ['fence'] },
  { name: '```py fence, final call', language: 'python', code: '```py\nawait tools.list_ids({})\n```', value: [1, 2, 3], normalized: ['fence'] },
];

function setup(engine: 'quickjs' | 'v8') {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({
    name: 'get_user',
    description: 'A user by id.',
    inputSchema: { type: 'object', properties: { id: { type: 'integer' } } },
    handler: async (input) => ({ content: [{ type: 'text', text: JSON.stringify({ id: input.id, name: 'Ada' }) }], structuredContent: { id: input.id, name: 'Ada' } }),
  });
  host.registerTool({
    name: 'list_ids',
    description: 'All ids.',
    inputSchema: { type: 'object' },
    handler: async () => ({ content: [{ type: 'text', text: '[1,2,3]' }] }),
  });
  const codeExecution = registerCodeExecution(host, { engine });
  let n = 0;
  const run = async (code: string, language: Lang = 'javascript') => {
    const stream = host.openStream(`corpus-${engine}-${n++}`);
    const inferenceId = stream.beginInference();
    const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code, language } });
    stream.end('turn complete');
    return outcome.result?.structuredContent as any;
  };
  return { host, codeExecution, run };
}

for (const engine of ['quickjs', 'v8'] as const) describe(`the corpus of model-written scripts (${engine})`, () => {
  let ctx: ReturnType<typeof setup>;
  before(() => {
    ctx = setup(engine);
  });
  after(async () => {
    await ctx.codeExecution.close();
    await ctx.host.close();
  });

  for (const c of CASES.filter((c) => (c.language ?? 'javascript') === 'javascript' || engine === 'quickjs')) {
    test(`${c.language ?? 'javascript'}: ${c.name}`, async () => {
      const envelope = await ctx.run(c.code, c.language);
      assert.equal(envelope?.ok, true, JSON.stringify(envelope));
      assert.deepEqual(envelope.value, c.value);
      assert.deepEqual(envelope.normalized, c.normalized);
    });
  }

  test('a runtime error in TypeScript names the line and column the model wrote', async () => {
    // Types are blanked in place: the column is the one of the typed text.
    const typed = await ctx.run('const u: { name: string; tags?: string[] } = await tools.get_user({ id: 1 });\nconst n: number = u.tags!.length;\nreturn n;');
    const plain = await ctx.run('const u = await tools.get_user({ id: 1 });\nconst n         = u.tags .length;\nreturn n;');
    assert.equal(typed.ok, false);
    const at = /script\.js:\d+:\d+/.exec(typed.error.stack)?.[0];
    assert.equal(at, /script\.js:\d+:\d+/.exec(plain.error.stack)?.[0], `${typed.error.stack} vs ${plain.error.stack}`);
    assert.match(at!, /^script\.js:2:/);
  });

  test('an error after an enum (reprinted by the transform) still names the line the model wrote', async () => {
    const envelope = await ctx.run("enum Mode { Fast, Slow }\nconst u: any = undefined;\n\nconst mode: Mode = Mode.Slow;\nreturn u.name + mode;");
    assert.equal(envelope.ok, false, JSON.stringify(envelope));
    assert.deepEqual(envelope.normalized, ['typescript']);
    assert.match(envelope.error.stack, /script\.js:5:/, envelope.error.stack);
  });

  test('an error in a final expression names the column the model wrote, not the added return', async () => {
    const final = await ctx.run(USER + '\nu.missing.deep');
    const plain = await ctx.run(USER + '\nu.missing.deep;\nreturn 1;');
    assert.deepEqual(final.normalized, ['final-expression']);
    const at = /script\.js:\d+:\d+/.exec(final.error.stack)?.[0];
    assert.equal(at, /script\.js:\d+:\d+/.exec(plain.error.stack)?.[0], `${final.error.stack} vs ${plain.error.stack}`);
  });

  test('a syntax error says what was expected and shows the line with a caret; nothing runs', async () => {
    const envelope = await ctx.run('const ids = await tools.list_ids({});\nconst first = Math.max(1, 2;\nreturn first;');
    assert.equal(envelope.ok, false);
    assert.equal(envelope.error.name, 'SyntaxError');
    assert.match(envelope.error.message, /Expected ','/);
    assert.deepEqual([envelope.error.line, envelope.error.column], [2, 28]);
    assert.equal(envelope.error.stack, "SyntaxError: Expected ',', got ';'\n    at script.js:2:28\n  2 | const first = Math.max(1, 2;\n    |                            ^");
    assert.deepEqual(envelope.calls, []);
  });

  test('a syntax error after TypeScript types is the real one, not the first type', async () => {
    const envelope = await ctx.run('const u: { name: string } = await tools.get_user({ id: 1 });\nconst xs = [1, 2;\nreturn u.name;');
    assert.equal(envelope.error.name, 'SyntaxError');
    assert.match(envelope.error.message, /Expected ','/);
    assert.equal(envelope.error.line, 2);
  });

  test('an unclosed script says where it ended', async () => {
    const envelope = await ctx.run('const xs = [1,\n  2');
    assert.equal(envelope.error.name, 'SyntaxError');
    assert.match(envelope.error.message, /at the end of the script/);
    assert.match(envelope.error.stack, /at script\.js:2:4\n  2 \|   2\n    \|    \^$/);
  });

  test('a final expression whose value cannot be returned says it came from the last expression', async () => {
    const envelope = await ctx.run('const f = () => 1;\nf');
    assert.deepEqual(envelope.normalized, ['final-expression']);
    assert.match(envelope.error.message, /^the script returned a function, .*\(the value of the script's last expression, returned because the script has no return statement/);
  });

  test('a value that cannot be returned says why', async () => {
    for (const [code, why] of [
      ['return () => 1;', /function/],
      ['const a = {}; a.self = a; return a;', /circular.*a cycle/is],
    ] as const) {
      const envelope = await ctx.run(code);
      assert.equal(envelope.ok, false, code);
      assert.match(envelope.error.message, why, code);
    }
  });
});

test('Python: a syntax error shows its line with a caret and says what is wrong', async () => {
  const ctx = setup('quickjs');
  try {
    const envelope = await ctx.run('ids = [1, 2\ncount = len(ids)', 'python');
    assert.equal(envelope.error.name, 'SyntaxError');
    assert.match(envelope.error.message, /'\[' was never closed/);
    assert.match(envelope.error.stack, /line 1\n    ids = \[1, 2\n {10}\^/);
  } finally {
    await ctx.codeExecution.close();
    await ctx.host.close();
  }
});
