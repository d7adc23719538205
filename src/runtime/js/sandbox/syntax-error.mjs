// A syntax error as a model can act on it: the message, the script's line and column, and the
// offending line with a caret under the column. Shared by both engines' sandbox processes and by
// code_execution's own check (which runs before any engine). Pure: no I/O.

const FILE = 'script.js';
/** Longest piece of the offending line shown around the caret. */
const SHOWN = 120;

/**
 * @param {string} message what the parser said
 * @param {string} code the script as the runtime received it
 * @param {number} line 1-based line of the script; 0 or less when unknown
 * @param {number} [column] 1-based column; absent when unknown
 * @returns {{ message: string, stack: string }}
 */
export function formatSyntaxError(message, code, line, column) {
  const lines = code.split('\n');
  let text = String(message);
  if (line > lines.length) {
    line = lines.length;
    column = (lines[line - 1] ?? '').replace(/\r$/, '').length + 1;
    if (!/at the end of the script/.test(text)) text += ' (at the end of the script)';
  }
  if (!(line >= 1)) return { message: text, stack: `SyntaxError: ${text}` };
  const source = (lines[line - 1] ?? '').replace(/\r$/, '');
  if (column === undefined || !(column >= 1)) column = undefined;
  else if (column > source.length + 1) column = source.length + 1;
  let stack = `SyntaxError: ${text}\n    at ${FILE}:${line}${column === undefined ? '' : `:${column}`}`;
  // Blank lines carry nothing to point at.
  if (source.trim() === '') return { message: text, stack };
  let from = 0;
  if (column !== undefined && column > SHOWN - 20) from = column - (SHOWN - 20);
  const shown = source.slice(from, from + SHOWN);
  const gutter = `  ${line} | `;
  stack += `\n${gutter}${from > 0 ? '…' : ''}${shown}${from + SHOWN < source.length ? '…' : ''}`;
  if (column !== undefined) {
    // Tabs stay tabs, so the caret lines up however the reader renders them.
    const pad = source.slice(from, column - 1).replace(/[^\t]/g, ' ');
    stack += `\n${' '.repeat(gutter.length - 2)}| ${from > 0 ? ' ' : ''}${pad}^`;
  }
  return { message: text, stack };
}
