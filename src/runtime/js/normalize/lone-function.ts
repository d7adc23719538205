/**
 * Runs a script that is one lone function — `async () => { … }`, `(function () { … })`, or
 * `async function main() { … }` — by calling it and returning its result, instead of evaluating
 * the function and dropping it (a silent `ok: true` with no value). Whether the script is
 * exactly that is decided by a real parser (acorn), never by matching text: anything else,
 * including code acorn cannot parse (TypeScript, a syntax error the runtime will report), is
 * left untouched. Lines are kept: the call is added on the function's own first and last
 * lines, so only columns of the first line move. Pure: no I/O.
 */
import { parse, type Program } from 'acorn';

/** The script rewritten to call its lone function and return the result, or `undefined` when it is not one. */
export function callLoneFunction(code: string): string | undefined {
  let program: Program;
  try {
    program = parse(code, { ecmaVersion: 'latest', allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true });
  } catch {
    // Not parseable as JavaScript: not a lone function; the runtime reports its own error.
    return undefined;
  }
  if (program.body.length !== 1) return undefined;
  const only = program.body[0]!;
  if (only.type === 'FunctionDeclaration' && only.id.name === 'main' && !only.generator) {
    // Called after its declaration, on its last line: nothing before it moves.
    return `${code.slice(0, only.end)};return await main();${code.slice(only.end)}`;
  }
  if (only.type === 'ExpressionStatement') {
    const fn = only.expression;
    const callable = fn.type === 'ArrowFunctionExpression' || (fn.type === 'FunctionExpression' && !fn.generator);
    if (!callable) return undefined;
    // From the statement's start, so a parenthesized function `(async () => { … })` keeps its own parentheses.
    return `${code.slice(0, only.start)}return await (${code.slice(only.start, fn.end)})()${code.slice(fn.end)}`;
  }
  return undefined;
}
