/**
 * Turns a script as a model wrote it into one the runtimes run, and names every change made,
 * so the result envelope can tell the model what happened (`normalized`). Each step is a
 * pure function in the runtime room (src/runtime/js/normalize/); this file orders them per
 * language, keeps the way back from positions in the script that ran to the script the model
 * wrote, and turns a script that is neither JavaScript nor TypeScript into a syntax error
 * that says what was expected, before any engine starts.
 *
 * JavaScript order: fence → acorn parse → (only if that fails) prose around one fenced block, then
 * TypeScript → `export default`,
 * else a lone function, else a final expression. A plain JavaScript script pays one acorn parse.
 */
import { stripFence, stripProse } from '../runtime/js/normalize/fence.ts';
import { loneFunctionEdits } from '../runtime/js/normalize/lone-function.ts';
import { exportDefaultEdits } from '../runtime/js/normalize/export-default.ts';
import { finalExpressionEdits } from '../runtime/js/normalize/final-expression.ts';
import { parseScript } from '../runtime/js/normalize/parse.ts';
import { stripTypeScript } from '../runtime/js/normalize/typescript.ts';
import { applyEdits, composeMaps, editsMap, identity, type PositionMap } from '../runtime/js/normalize/edits.ts';
import { formatSyntaxError } from '../runtime/js/sandbox/syntax-error.mjs';
import type { ScriptLanguage } from './options.ts';
import type { RunReport } from './result.ts';

/**
 * A normalization applied to a script, as reported in the envelope's `normalized`:
 * `fence` (one Markdown fence removed), `typescript` (types stripped), `export-default` (the
 * default export called, or its value returned), `function` (a lone function called),
 * `final-expression` (the last expression statement's value returned).
 */
export type Normalization = 'fence' | 'typescript' | 'export-default' | 'function' | 'final-expression';

/** The script to run and the normalizations that produced it (empty when it runs as written). */
export interface NormalizedScript {
  code: string;
  normalized: Normalization[];
  /** From a position in `code` to the same place in the script as written (identity when nothing moved). */
  positions: PositionMap;
  /** Set when the script parses neither as JavaScript nor as TypeScript: report it, do not run it. */
  syntaxError?: { message: string; stack: string; line: number; column: number };
}

/** Applies the normalizations that fit `language`; code that needs none is returned unchanged. */
export function normalizeScript(code: string, language: ScriptLanguage): NormalizedScript {
  const normalized: Normalization[] = [];
  const unfenced = stripFence(code, language);
  if (unfenced !== undefined) {
    code = unfenced;
    normalized.push('fence');
  }
  if (language !== 'javascript') return { code, normalized, positions: identity };
  let positions = identity;
  let parsed = parseScript(code);
  // Prose around one fenced block ("Here is the script:" … "It returns …"): dropped only when
  // the script as written does not parse, so code that merely mentions a fence stays as it is.
  const prose = !parsed.ok && unfenced === undefined ? stripProse(code, language) : undefined;
  if (prose !== undefined) {
    code = prose;
    normalized.push('fence');
    parsed = parseScript(code);
  }
  if (!parsed.ok) {
    const stripped = stripTypeScript(code);
    if (!stripped.ok) {
      const { line, column } = stripped.error;
      return { code, normalized, positions, syntaxError: { ...formatSyntaxError(stripped.error.message, code, line, column), line, column } };
    }
    // Nothing stripped: JavaScript acorn does not know yet; the engine decides.
    if (stripped.code === code) return { code, normalized, positions };
    code = stripped.code;
    positions = stripped.map;
    normalized.push('typescript');
    parsed = parseScript(code);
    if (!parsed.ok) return { code, normalized, positions };
  }
  const { program } = parsed;
  let edits;
  let step: Normalization | undefined;
  if (parsed.module) {
    edits = exportDefaultEdits(program, code);
    step = 'export-default';
  } else if ((edits = loneFunctionEdits(program)) !== undefined) {
    step = 'function';
  } else {
    edits = finalExpressionEdits(program);
    step = 'final-expression';
  }
  if (edits === undefined) return { code, normalized, positions };
  normalized.push(step);
  positions = composeMaps(editsMap(code, edits), positions);
  return { code: applyEdits(code, edits), normalized, positions };
}

const AT = /script\.js:(\d+)(?::(\d+))?/g;

/**
 * The run's report with every `script.js:line:column` of its error (and its `line`/`column`)
 * moved back to the script the model wrote. Unchanged when nothing moved.
 */
export function restorePositions(report: RunReport, positions: PositionMap): RunReport {
  const error = report.error;
  if (positions === identity || error === undefined) return report;
  const moved = { ...error };
  if (error.stack !== undefined) {
    moved.stack = error.stack.replace(AT, (_, line: string, column: string | undefined) => {
      const at = positions({ line: Number(line), column: column === undefined ? 1 : Number(column) });
      return column === undefined ? `script.js:${at.line}` : `script.js:${at.line}:${at.column}`;
    });
  }
  if (error.line !== undefined) {
    const at = positions({ line: error.line, column: error.column ?? 1 });
    moved.line = at.line;
    if (error.column !== undefined) moved.column = at.column;
  }
  return { ...report, error: moved };
}

/**
 * A value the script could not return, when it was its final expression's (the model wrote no
 * `return`): says so, so the model knows where the value came from.
 */
export function explainFinalExpression(report: RunReport, normalized: readonly Normalization[]): RunReport {
  const error = report.error;
  if (error === undefined || !normalized.includes('final-expression') || error.kind !== 'script') return report;
  if (!/^the (script returned|return value)/.test(error.message)) return report;
  const note = " (the value of the script's last expression, returned because the script has no return statement; end it with a declaration or `return` to return something else)";
  return { ...report, error: { ...error, message: error.message + note } };
}

/** The report of a script that was not run because it does not parse. */
export function syntaxErrorReport(error: NonNullable<NormalizedScript['syntaxError']>): RunReport {
  return { ok: false, error: { kind: 'script', name: 'SyntaxError', message: error.message, stack: error.stack, line: error.line, column: error.column }, calls: [] };
}
