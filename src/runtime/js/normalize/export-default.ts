/**
 * Runs `export default …`, the shape of a module's entry point, as a script: the exported
 * function is called and its result returned (`export default async function main() { … }`,
 * `export default async () => { … }`); an exported value is returned as it is. Decided on
 * acorn's module parse; `export default` is replaced on its own line, so lines are kept. Other
 * `export` forms are left for the runtime to reject. Pure: no I/O.
 */
import type { Program } from 'acorn';
import type { Edit } from './edits.ts';

/** The edits that run the program's `export default`, or `undefined` when it has none it can run. */
export function exportDefaultEdits(program: Program, code: string): Edit[] | undefined {
  const statements = program.body;
  const found = statements.find((s) => s.type === 'ExportDefaultDeclaration');
  if (found === undefined || found.type !== 'ExportDefaultDeclaration') return undefined;
  // Any other import or export is a module this runtime cannot run: leave it to report.
  if (statements.some((s) => s !== found && /^(Import|Export)/.test(s.type))) return undefined;
  const value = found.declaration;
  const isFunction =
    ((value.type === 'FunctionDeclaration' || value.type === 'FunctionExpression') && !value.generator) || value.type === 'ArrowFunctionExpression';
  if (value.type === 'ClassDeclaration' || (!isFunction && /^Function/.test(value.type))) return undefined;
  // Edits never move a line: `export default` and its value must share one.
  if (/[\r\n]/.test(code.slice(found.start, value.start))) return undefined;
  // `export default ` → `return await (`, and `)()` after the function: its own text is untouched.
  return [
    { start: found.start, end: value.start, text: isFunction ? 'return await (' : 'return (' },
    { start: value.end, end: value.end, text: isFunction ? ')()' : ')' },
  ];
}
