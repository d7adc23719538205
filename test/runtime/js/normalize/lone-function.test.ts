/**
 * callLoneFunction: which scripts count as one lone function (decided by acorn), and that the
 * rewrite keeps every line where the model wrote it. Running the rewrites is covered end to end
 * in test/code-execution/normalize.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callLoneFunction } from '../../../../src/runtime/js/normalize/lone-function.ts';

test('a lone arrow, function expression or function main is called; lines are kept', () => {
  for (const code of ['async () => {\n  return 1;\n}', '() => 1;', '(async function () {\n  return 1;\n})', 'async function main() {\n  return 1;\n}\n', 'function main() { return 1 }']) {
    const out = callLoneFunction(code);
    assert.ok(out !== undefined, code);
    assert.equal(out.split('\n').length, code.split('\n').length, `lines kept: ${out}`);
    assert.match(out, /return await /);
  }
});

test('anything else is left untouched', () => {
  for (const code of [
    'async function main() { return 1 }\nreturn await main();', // the script calls it itself
    'async function helper() { return 1 }', // not named main
    'function* main() { yield 1 }', // a generator: calling it would not run it
    '(function* () { yield 1 })',
    'const f = async () => 1;', // a declaration, not a lone function
    'return 1;',
    '1 + 1',
    'const u: { name: string } = { name: "a" };\nasync () => u', // TypeScript: acorn cannot parse it
    'async () => {', // a syntax error: the runtime reports it
  ]) {
    assert.equal(callLoneFunction(code), undefined, code);
  }
});
