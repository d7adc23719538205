/**
 * Parses a script with acorn the way the runtimes run it: the body of an async function
 * (top-level `await` and `return`). A script that only parses as a module (it has `export
 * default`) is parsed again as one. The parse decides every rewrite of normalize/, so code is
 * never matched as text. Pure: no I/O.
 */
import { createRequire } from 'node:module';
import type { Options, Program } from 'acorn';

/**
 * acorn is required at the first parse, not imported with the package (issue 46: importing
 * `toolcell` loads only what the first call needs). Its CommonJS build is the same parser.
 */
const require = createRequire(import.meta.url);
let acornParse: typeof import('acorn').parse | undefined;
const parse: typeof import('acorn').parse = (input, options) => (acornParse ??= (require('acorn') as typeof import('acorn')).parse)(input, options);

/** Where and why a parse failed: 1-based line, 1-based column. */
export interface ParseFailure {
  message: string;
  line: number;
  column: number;
}

export type Parsed = { ok: true; program: Program; module: boolean } | { ok: false; error: ParseFailure };

const BASE: Options = { ecmaVersion: 'latest', allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true };

export function parseScript(code: string): Parsed {
  try {
    return { ok: true, program: parse(code, { ...BASE, sourceType: 'script' }), module: false };
  } catch (error) {
    const failure = parseFailure(error);
    // Only `export` makes a module worth trying: anything else fails (or is stricter) there too.
    if (/\bexport\b/.test(code)) {
      try {
        return { ok: true, program: parse(code, { ...BASE, sourceType: 'module' }), module: true };
      } catch {
        // The script parse's error is the one to report.
      }
    }
    return { ok: false, error: failure };
  }
}

function parseFailure(error: unknown): ParseFailure {
  const e = error as { message?: string; pos?: number; loc?: { line: number; column: number } };
  if (!(error instanceof SyntaxError) || e.loc === undefined) throw error;
  // acorn appends " (line:column)" to its message; the position is reported apart.
  const message = String(e.message).replace(/ \(\d+:\d+\)$/, '');
  return { message, line: e.loc.line, column: e.loc.column + 1 };
}
