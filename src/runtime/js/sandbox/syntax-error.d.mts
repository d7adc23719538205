/** Message and stack of a syntax error: `at script.js:line:column`, the line, a caret under the column. */
export function formatSyntaxError(message: string, code: string, line: number, column?: number): { message: string; stack: string };
