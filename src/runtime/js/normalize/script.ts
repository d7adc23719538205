/**
 * Turns a script as a model wrote it into one the runtimes run, naming every change made, as
 * plain data: the result crosses from the normalizing thread to the host's
 * (code-execution/normalize-pool.ts), so the way back to the written script's positions is a
 * list of steps ({@link PositionStep}) that {@link stepsMap} turns into a map on the host.
 *
 * JavaScript order: fence → acorn parse → (only if that fails) prose around one fenced block,
 * then TypeScript → `export default`, else a lone function, else a final expression. A plain
 * JavaScript script pays one acorn parse. Pure apart from loading amaro for TypeScript.
 */
import { stripFence, stripProse, type FenceLanguage } from './fence.ts';
import { loneFunctionEdits } from './lone-function.ts';
import { exportDefaultEdits } from './export-default.ts';
import { finalExpressionEdits } from './final-expression.ts';
import { parseScript } from './parse.ts';
import { sourcePositions, stripTypeScript, type SourcePositions } from './typescript.ts';
import { applyEdits, composeMaps, editsTable, identity, tableMap, type EditTable, type PositionMap } from './edits.ts';
import { formatSyntaxError } from '../sandbox/syntax-error.mjs';

/**
 * A normalization applied to a script, as reported in the envelope's `normalized`:
 * `fence` (one Markdown fence, and any prose around it, removed), `typescript` (types
 * stripped), `export-default` (the default export called, or its value returned), `function`
 * (a lone function called), `final-expression` (the last expression statement's value returned).
 */
export type Normalization = 'fence' | 'typescript' | 'export-default' | 'function' | 'final-expression';

/** One step of the way back: text edits, or a TypeScript transform's source map. */
export type PositionStep = { kind: 'edits'; table: EditTable } | { kind: 'source'; source: SourcePositions };

/** A script as it will run, and how it came from the script as written. Plain data. */
export interface PreparedScript {
  code: string;
  normalized: Normalization[];
  /** The steps that moved positions, in the order they were made. */
  steps: PositionStep[];
  /** Set when the script parses neither as JavaScript nor as TypeScript: report it, do not run it. */
  syntaxError?: { message: string; stack: string; line: number; column: number };
}

/**
 * The normalizations that fit `language` applied to `code`. With `typescript: false`, a script
 * that would need the TypeScript stripper (it does not parse as JavaScript) gives `undefined`:
 * the caller sends it where stripping may take its time (code-execution/normalize-pool.ts).
 */
export function prepareScript(code: string, language: FenceLanguage, typescript = true): PreparedScript | undefined {
  const normalized: Normalization[] = [];
  const steps: PositionStep[] = [];
  const unfenced = stripFence(code, language);
  if (unfenced !== undefined) {
    code = unfenced;
    normalized.push('fence');
  }
  if (language !== 'javascript') return { code, normalized, steps };
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
    if (!typescript) return undefined;
    const stripped = stripTypeScript(code);
    if (!stripped.ok) {
      const { line, column } = stripped.error;
      return { code, normalized, steps, syntaxError: { ...formatSyntaxError(stripped.error.message, code, line, column), line, column } };
    }
    // Nothing stripped: JavaScript acorn does not know yet; the engine decides.
    if (stripped.code === code) return { code, normalized, steps };
    code = stripped.code;
    if (stripped.source !== undefined) steps.push({ kind: 'source', source: stripped.source });
    normalized.push('typescript');
    parsed = parseScript(code);
    if (!parsed.ok) return { code, normalized, steps };
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
  if (edits === undefined) return { code, normalized, steps };
  normalized.push(step);
  if (edits.length > 0) steps.push({ kind: 'edits', table: editsTable(code, edits) });
  return { code: applyEdits(code, edits), normalized, steps };
}

/** From a position in the prepared script back to the script as written (identity when nothing moved). */
export function stepsMap(steps: readonly PositionStep[]): PositionMap {
  let map = identity;
  for (const step of steps) map = composeMaps(step.kind === 'edits' ? tableMap(step.table) : sourcePositions(step.source), map);
  return map;
}
