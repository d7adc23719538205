/**
 * Runs a script that is one lone function — `async () => { … }`, `(function () { … })`, or
 * `async function main() { … }` — by calling it and returning its result, instead of evaluating
 * the function and dropping it (a silent `ok: true` with no value). Whether the script is
 * exactly that is decided by a real parser (acorn), never by matching text: anything else,
 * including code acorn cannot parse (TypeScript before its types are stripped, a syntax error
 * the runtime will report), is left untouched. Lines are kept: the call is added on the
 * function's own first and last lines, so only columns there move (edits.ts maps them back).
 * Pure: no I/O.
 */
import type { Program } from 'acorn';
import { applyEdits, type Edit } from './edits.ts';
import { parseScript } from './parse.ts';

/** The edits that call the program's lone function and return its result, or `undefined` when it is not one. */
export function loneFunctionEdits(program: Program): Edit[] | undefined {
  if (program.body.length !== 1) return undefined;
  const only = program.body[0]!;
  if (only.type === 'FunctionDeclaration' && only.id.name === 'main' && !only.generator) {
    // Called after its declaration, on its last line: nothing before it moves.
    return [{ start: only.end, end: only.end, text: ';return await main();' }];
  }
  if (only.type === 'ExpressionStatement') {
    const fn = only.expression;
    const callable = fn.type === 'ArrowFunctionExpression' || (fn.type === 'FunctionExpression' && !fn.generator);
    if (!callable) return undefined;
    // From the statement's start, so a parenthesized function `(async () => { … })` keeps its own parentheses.
    return [
      { start: only.start, end: only.start, text: 'return await (' },
      { start: fn.end, end: fn.end, text: ')()' },
    ];
  }
  return undefined;
}

/** The script rewritten to call its lone function and return the result, or `undefined` when it is not one. */
export function callLoneFunction(code: string): string | undefined {
  const parsed = parseScript(code);
  if (!parsed.ok || parsed.module) return undefined;
  const edits = loneFunctionEdits(parsed.program);
  return edits === undefined ? undefined : applyEdits(code, edits);
}
