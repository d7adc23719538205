/**
 * The pure steps behind code_execution's normalizations: which scripts get a final-expression
 * return or an `export default` call (decided on acorn's parse), that edits keep every line and
 * map columns back exactly, that TypeScript is stripped in place (same positions) or, for
 * `enum`, transformed with a source map back to the script, and that plain JavaScript never
 * loads the transformer. Running the results is covered in test/code-execution/corpus.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEdits, editsMap } from '../../../../src/runtime/js/normalize/edits.ts';
import { parseScript } from '../../../../src/runtime/js/normalize/parse.ts';
import { finalExpressionEdits } from '../../../../src/runtime/js/normalize/final-expression.ts';
import { exportDefaultEdits } from '../../../../src/runtime/js/normalize/export-default.ts';
import { decodeMappings, originalPosition } from '../../../../src/runtime/js/normalize/source-map.ts';
import { normalizeScript } from '../../../../src/code-execution/normalize.ts';

function final(code: string): string | undefined {
  const parsed = parseScript(code);
  assert.ok(parsed.ok, code);
  const edits = finalExpressionEdits(parsed.program);
  return edits && applyEdits(code, edits);
}

test('a final expression is returned only when the script has no top-level return', () => {
  assert.equal(final('const a = 1;\na + 1'), 'const a = 1;\nreturn a + 1');
  assert.equal(final('({ count: 1 });'), 'return ({ count: 1 });');
  assert.equal(final('await x()\n// done'), 'return await x()\n// done');
  for (const code of [
    'const a = 1;', // a declaration
    'function f() {}', // a declaration
    'if (a) { return 1 }\na', // a return in a branch
    'try { x() } catch { return 2 }\n3', // in a catch
    'switch (a) { case 1: return 1 }\n2',
    'label: { return 1 }\n2',
    '"use strict"', // a directive
    '',
  ]) {
    assert.equal(final(code), undefined, code);
  }
  // A return inside a function or a class is the function's own.
  assert.equal(final('const f = () => { return 1 };\nclass A { m() { return 2 } }\nf()'), 'const f = () => { return 1 };\nclass A { m() { return 2 } }\nreturn f()');
});

test('export default: a function is called, a value returned; other modules are left alone', () => {
  const run = (code: string) => {
    const parsed = parseScript(code);
    assert.ok(parsed.ok && parsed.module, code);
    const edits = exportDefaultEdits(parsed.program, code);
    return edits && applyEdits(code, edits);
  };
  assert.equal(run('export default async function main() {\n  return 1;\n}'), 'return await (async function main() {\n  return 1;\n})()');
  assert.equal(run('export default async () => 1;'), 'return await (async () => 1)();');
  assert.equal(run('export default { a: 1 };'), 'return ({ a: 1 });');
  assert.equal(run('export const a = 1;\nexport default () => a;'), undefined);
  assert.equal(run('export default class A {}'), undefined);
  assert.equal(run('export default function* g() {}'), undefined);
  // A script without export is never parsed as a module.
  const plain = parseScript('return 1');
  assert.ok(plain.ok && !plain.module);
});

test('edits keep lines and map columns back to the text as written', () => {
  const code = 'const u = 1;\nfoo(u).bar';
  const edits = [{ start: 13, end: 13, text: 'return ' }];
  const out = applyEdits(code, edits);
  assert.equal(out, 'const u = 1;\nreturn foo(u).bar');
  const map = editsMap(code, edits);
  // `.bar` is at column 7 as written, 14 after the edit.
  assert.deepEqual(map({ line: 2, column: 14 }), { line: 2, column: 7 });
  // Inside the inserted text: where it was inserted.
  assert.deepEqual(map({ line: 2, column: 3 }), { line: 2, column: 1 });
  assert.deepEqual(map({ line: 1, column: 5 }), { line: 1, column: 5 });
  // A replacement (export default → return await () and two edits on one line.
  const module = 'export default async () => x;';
  const moduleEdits = [{ start: 0, end: 15, text: 'return await (' }, { start: 28, end: 28, text: ')()' }];
  const moved = applyEdits(module, moduleEdits);
  assert.equal(moved, 'return await (async () => x)();');
  assert.deepEqual(editsMap(module, moduleEdits)({ line: 1, column: moved.lastIndexOf('x') + 1 }), { line: 1, column: module.lastIndexOf('x') + 1 });
  assert.deepEqual(editsMap(module, moduleEdits)({ line: 1, column: moved.indexOf(';') + 1 }), { line: 1, column: module.indexOf(';') + 1 });
  assert.throws(() => applyEdits('a\nb', [{ start: 0, end: 3, text: '' }]), /line break/);
});

test('source maps: VLQ segments decoded, a generated position mapped to its source', () => {
  // "AAAA,MAAM;AACN": line 0 col 0 → 0:0, col 6 → 0:6; line 1 col 0 → 1:0 (N is -6: relative to 6).
  const lines = decodeMappings('AAAA,MAAM;AACN');
  assert.deepEqual(lines, [[[0, 0, 0], [6, 0, 6]], [[0, 1, 0]]]);
  assert.deepEqual(originalPosition(lines, 0, 8), { line: 0, column: 8 });
  assert.deepEqual(originalPosition(lines, 1, 2), { line: 1, column: 2 });
  assert.equal(originalPosition(lines, 5, 0), undefined);
  // A line without segments takes the closest mapped line above.
  assert.deepEqual(originalPosition([[[0, 3, 4]], []], 1, 9), { line: 3, column: 4 });
});

test('TypeScript is stripped in place: same length, same positions of every JavaScript token', () => {
  const code = 'const u: { name: string } = await tools.get({ id: 1 }) as User;\nreturn u!.name satisfies string;';
  const out = normalizeScript(code, 'javascript');
  assert.deepEqual(out.normalized, ['typescript']);
  assert.equal(out.code.length, code.length);
  for (const token of ['await', 'tools.get', 'return', '.name']) assert.equal(out.code.indexOf(token), code.indexOf(token), token);
});

test('an enum is transformed; positions after it map back through the source map', () => {
  const code = 'enum E { A, B }\nconst x: number = 1;\n\nreturn E.B + x;';
  const out = normalizeScript(code, 'javascript');
  assert.deepEqual(out.normalized, ['typescript']);
  // swc inlines the enum member: `return 1 + x`.
  const generatedLine = out.code.split('\n').findIndex((l) => l.includes('+ x')) + 1;
  assert.notEqual(generatedLine, 4, 'the transform reprinted the script (the map is what keeps the line)');
  assert.equal(out.positions({ line: generatedLine, column: 1 }).line, 4);
  // Lines inside the reprinted enum belong to the enum's line.
  assert.equal(out.positions({ line: 2, column: 1 }).line, 1);
});

test('a script that is neither JavaScript nor TypeScript is a syntax error with what was expected', () => {
  const out = normalizeScript('const a = [1, 2;\nreturn a', 'javascript');
  assert.equal(out.syntaxError?.message, "Expected ',', got ';'");
  assert.deepEqual([out.syntaxError?.line, out.syntaxError?.column], [1, 16]);
  assert.match(out.syntaxError!.stack, /\n  1 \| const a = \[1, 2;\n    \| {16}\^$/);
});

test('plain JavaScript never loads the TypeScript transformer', async () => {
  // A fresh process: this one may have loaded it already.
  const { spawnSync } = await import('node:child_process');
  const script = `
    import { normalizeScript } from './src/code-execution/normalize.ts';
    import { typeScriptLoaded } from './src/runtime/js/normalize/typescript.ts';
    for (const code of ['return 1', 'const a = await tools.x({});\\na.b', 'async () => 1', 'export default async () => 1', '\`\`\`js\\nreturn 2\\n\`\`\`']) normalizeScript(code, 'javascript');
    const before = typeScriptLoaded();
    normalizeScript('const a: number = 1; return a', 'javascript');
    console.log(JSON.stringify([before, typeScriptLoaded()]));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.trim()), [false, true]);
});

test('the caret lines up under tabs and on long lines', async () => {
  const { formatSyntaxError } = await import('../../../../src/runtime/js/sandbox/syntax-error.mjs');
  assert.equal(formatSyntaxError('x', 'a\n\tfoo(;', 2, 6).stack, 'SyntaxError: x\n    at script.js:2:6\n  2 | \tfoo(;\n    | \t    ^');
  const long = 'const s = ' + '"a" + '.repeat(60) + ';;';
  const { stack } = formatSyntaxError('y', long, 1, long.length);
  const [, , shown, caret] = stack.split('\n');
  assert.ok(shown!.length < 140, 'the line is cut around the column');
  assert.equal(caret!.indexOf('^') - caret!.indexOf('|'), shown!.indexOf(';;') + 1 - shown!.indexOf('|'), 'the caret is under the column');
  // No line known: the message alone.
  assert.equal(formatSyntaxError('z', 'a', 0).stack, 'SyntaxError: z');
});
