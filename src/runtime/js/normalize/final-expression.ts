/**
 * Returns the value of a script's final expression statement (`u.name`, `await
 * tools.list_ids({})`, `({ count })`) when the script never `return`s at its top level, as
 * Python's runner and a REPL do. An explicit top-level `return` anywhere always wins, and a
 * final declaration returns nothing. Decided on acorn's parse; `return ` is inserted on the
 * expression's own line, so lines are kept. Pure: no I/O.
 */
import type { Node, Program, Statement } from 'acorn';
import type { Edit } from './edits.ts';

/** The edit that returns the final expression, or `undefined` when the script returns or ends otherwise. */
export function finalExpressionEdits(program: Program): Edit[] | undefined {
  const last = program.body.at(-1);
  if (last === undefined || last.type !== 'ExpressionStatement' || 'directive' in last) return undefined;
  if (program.body.some((s) => returnsAtTop(s))) return undefined;
  // Before the statement, not its expression: a parenthesized `({ count })` keeps its parentheses.
  return [{ start: last.start, end: last.start, text: 'return ' }];
}

/**
 * Whether a statement holds a `return` of the script itself: inside blocks, branches, loops,
 * `try` and `switch`, never inside a function or a class (their `return`s are their own).
 */
function returnsAtTop(node: Statement | Node | null | undefined): boolean {
  if (node === null || node === undefined) return false;
  const n = node as Statement;
  switch (n.type) {
    case 'ReturnStatement':
      return true;
    case 'BlockStatement':
      return n.body.some(returnsAtTop);
    case 'IfStatement':
      return returnsAtTop(n.consequent) || returnsAtTop(n.alternate);
    case 'ForStatement':
    case 'ForInStatement':
    case 'ForOfStatement':
    case 'WhileStatement':
    case 'DoWhileStatement':
    case 'LabeledStatement':
    case 'WithStatement':
      return returnsAtTop(n.body);
    case 'TryStatement':
      return returnsAtTop(n.block) || returnsAtTop(n.handler?.body) || returnsAtTop(n.finalizer);
    case 'SwitchStatement':
      return n.cases.some((c) => c.consequent.some(returnsAtTop));
    default:
      return false;
  }
}
