/**
 * Result types learned from real responses (issue 44, item 2): a tool without an outputSchema
 * that returned `{ items: [{ id, title }] }` as JSON text three times is declared with that
 * shape, marked observed, with no value of any result in the declaration; a script using it
 * type-checks against the declaration (the TypeScript compiler); a tool whose text results are
 * plain numbers gives the script numbers; the learner's own bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import ts from 'typescript';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { LEARNED_REFRESH_MS } from '../../src/code-execution/learned-refresh.ts';
import { MAX_LEARNED_SCHEMA_CHARS, MAX_SHAPE_PROPERTIES, ShapeLearner, schemaOf, shapeOf } from '../../src/code-execution/learned-shapes.ts';

const SECRET_TITLES = ['Quarterly plan ZQX-11', 'Launch memo ZQX-22', 'Board notes ZQX-33'];

function rig() {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  let n = 0;
  host.registerTool({
    name: 'list_docs',
    description: 'Lists documents',
    inputSchema: { type: 'object' },
    handler: async () => {
      const i = n++ % 3;
      const item: Record<string, unknown> = { id: 1000 + i, title: SECRET_TITLES[i] };
      if (i === 1) item.archived = true;
      return textResult(JSON.stringify({ items: [item] }));
    },
  });
  host.registerTool({ name: 'count', description: 'Counts', inputSchema: { type: 'object' }, handler: async () => textResult(String(40 + n++)) });
  const ce = registerCodeExecution(host, {});
  const run = async (code: string) => {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const out = await host.dispatch({ inferenceId, name: 'code_execution', input: { code } });
    return out.result!.structuredContent as { ok: boolean; value?: unknown };
  };
  const description = () => host.listTools().find((t) => t.name === 'code_execution')!.description;
  return { host, ce, run, description, close: async () => { await ce.close(); await host.close(); } };
}

/** The `declare` block of the description: everything between its TypeScript fence. */
function declarations(description: string): string {
  const match = /```ts\n([\s\S]*?)```/.exec(description);
  assert.ok(match, 'the description has a TypeScript block');
  return match[1]!;
}

function typeErrors(source: string): string[] {
  const file = 'check.ts';
  const host = ts.createCompilerHost({ strict: true, target: ts.ScriptTarget.ES2022, noEmit: true, lib: ['lib.es2022.d.ts'] });
  const read = host.getSourceFile;
  host.getSourceFile = (name, lang, ...rest) => (name === file ? ts.createSourceFile(file, source, lang) : read.call(host, name, lang, ...rest));
  const program = ts.createProgram([file], { strict: true, target: ts.ScriptTarget.ES2022, noEmit: true, lib: ['lib.es2022.d.ts'] }, host);
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

test('three JSON-text results are declared as their shape, marked observed, without any value', async (t) => {
  const r = rig();
  try {
    const before = declarations(r.description());
    assert.match(before, /list_docs[\s\S]*Promise<unknown>/);
    const env = await r.run('const out = []; for (let i = 0; i < 3; i++) out.push(await tools.list_docs({})); return out.length');
    assert.equal(env.value, 3);
    // The listing moves at most once per LEARNED_REFRESH_MS; the first change moves it at once.
    const after = declarations(r.description());
    t.diagnostic(after.split('\n').filter((l) => /list_docs|ListDocs|items|title|archived/.test(l)).join('\n'));
    assert.match(after, /Observed shape of 3 results/);
    assert.match(after, /items: \{[^}]*id: number;[^}]*title: string;[^}]*archived\?: boolean/s);
    for (const secret of [...SECRET_TITLES, '1000', '1001', 'ZQX']) assert.ok(!after.includes(secret), `declaration leaks ${secret}`);
    // A script written against the declaration type-checks; a wrong field does not.
    const good = `${after}\nasync function main() { const r = await tools.list_docs({}); const t: string = r.items[0].title; return t; }\n`;
    assert.deepEqual(typeErrors(good), []);
    const bad = `${after}\nasync function main() { const r = await tools.list_docs({}); return r.items[0].name; }\n`;
    assert.ok(typeErrors(bad).some((m) => /name/.test(m)), 'a field the tool never returned is a type error');
  } finally {
    await r.close();
  }
});

test('a tool whose text results are plain numbers is declared number and gives the script numbers', async () => {
  const r = rig();
  try {
    const env = await r.run('const a = await tools.count({}); const b = await tools.count({}); return [typeof a, a + b]');
    assert.deepEqual(env.value, ['number', 40 + 41]);
    assert.match(declarations(r.description()), /count[\s\S]*Promise<number>/);
  } finally {
    await r.close();
  }
});

test('the learner: optional fields, unions, records for non-name keys, bounded objects', () => {
  const learner = new ShapeLearner();
  learner.observe('t', { a: 1, b: 'x' }, false);
  learner.observe('t', { a: 'y' }, false);
  assert.deepEqual(learner.schemaFor('t')!.properties, { a: { anyOf: [{ type: 'number' }, { type: 'string' }] }, b: { type: 'string' } });
  assert.deepEqual(learner.schemaFor('t')!.required, ['a']);
  // Keys that are not names (e-mails, tokens) never become property names.
  assert.deepEqual(schemaOf(shapeOf({ 'ann@example.com': 1, 'bob@example.com': 2 })), { type: 'object', additionalProperties: { type: 'number' } });
  const wide = Object.fromEntries(Array.from({ length: MAX_SHAPE_PROPERTIES + 1 }, (_, i) => [`k${i}`, i]));
  assert.equal(schemaOf(shapeOf(wide)).properties, undefined);
  assert.ok(LEARNED_REFRESH_MS > 0);
  // A wide, deep result is cut to fewer levels so its declaration stays small.
  const deep = (d: number): unknown => (d === 0 ? 1 : Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field${i}`, deep(d - 1)])));
  learner.observe('deep', deep(4), false);
  const schema = learner.schemaFor('deep')!;
  assert.ok(JSON.stringify(schema).length <= MAX_LEARNED_SCHEMA_CHARS + 200, String(JSON.stringify(schema).length));
  assert.equal(schema.type, 'object');
});

test('a sampled result given as JSON text is parsed for its shape after the answer, and seen by every reader', async () => {
  const { JsonText } = await import('../../src/runtime/json-text.ts');
  let parses = 0;
  class Counted extends JsonText {
    override value(): unknown {
      parses++;
      return super.value();
    }
  }
  const learner = new ShapeLearner();
  const first = new Counted('{"items":[{"id":1,"title":"a"}]}');
  // The script gets the text as it is; nothing is parsed on the way to it.
  assert.equal(learner.observe('docs', first, true), first);
  assert.equal(parses, 0);
  // A reader before the next turn learns it first.
  assert.equal((learner.schemaFor('docs') as { type?: string } | undefined)?.type, 'object');
  assert.equal(parses, 1);
  // Left alone, the next turn of the event loop learns it: the version moves without a reader asking for the schema.
  const before = learner.version;
  learner.observe('docs', new Counted('{"items":[{"id":2,"title":"b","archived":true}]}'), true);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(parses, 2);
  assert.ok(learner.version > before);
  const props = (learner.schemaFor('docs') as { properties: { items: { items: { properties: Record<string, unknown>; required?: string[] } } } }).properties.items.items;
  assert.deepEqual(Object.keys(props.properties).sort(), ['archived', 'id', 'title']);
  assert.ok(!(props.required ?? []).includes('archived'));
  // Text that merely looks like JSON is learned as text, and goes to the script as it is.
  const looks = new Counted('{oops');
  assert.equal(learner.observe('notes', looks, true), looks);
  assert.equal((learner.schemaFor('notes') as { type?: string } | undefined)?.type, 'string');
});
