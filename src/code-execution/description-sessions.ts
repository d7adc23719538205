/**
 * The part of the `code_execution` description about sessions and the script helpers
 * (`inspect`, `print`), kept apart from the rest of the description so that it stays one
 * small, self-contained piece whatever shape the surrounding text takes.
 */
import type { ScriptLanguage } from './options.ts';

/** A few lines: what persists between runs, `reset`, `session.fresh`, and the two helpers. */
export function describeSessionsAndHelpers(languages: readonly ScriptLanguage[]): string {
  const lines = [
    'Sessions: runs in this conversation share a session. The result says `session.fresh: true` when the run started in a new one (first run, `reset: true`, after a time limit, a crash or a long idle): variables from earlier runs are then gone.',
  ];
  if (languages.includes('javascript')) {
    lines.push(
      'JavaScript keeps properties of the global object: assign without a declaration (`rows = await tools.x(...)`) or to `globalThis.rows`. `let`, `const`, `var` and function declarations are local to one run (the code is the body of a function).',
    );
  }
  if (languages.includes('python')) lines.push('Python keeps its globals.');
  lines.push('Helpers in both languages (not tool calls):');
  if (languages.includes('javascript')) {
    lines.push(
      '```ts',
      '/** The shape of a value: types, keys, lengths, one sample element; at most maxChars (2000) characters. Look at a large result with this before printing or returning it. */',
      'declare function inspect(value: unknown, options?: { depth?: number; maxChars?: number }): string;',
      "/** Writes a line to the result's `stdout` (console.* go to `logs`). */",
      'declare function print(...values: unknown[]): void;',
      '```',
    );
  }
  if (languages.includes('python')) {
    lines.push(
      '```python',
      'def inspect(value, depth=3, max_chars=2000) -> str: """The shape of a value: types, keys, lengths, one sample element."""',
      'def print(*values, **kwargs) -> None: """The builtin print; containers are written with a bounded repr."""',
      '```',
    );
  }
  return lines.join('\n');
}
