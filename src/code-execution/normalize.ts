/**
 * Turns a script as a model wrote it into one the runtimes run, and names every change made,
 * so the result envelope can tell the model what happened (`normalized`). The steps are pure
 * functions in the runtime room (src/runtime/js/normalize/, script.ts orders them); this file
 * decides where they run — on the host's thread only when their cost is provably small
 * ({@link HOST_PREPARE_MAX_BYTES}), otherwise on a thread of the normalize pool under its time
 * bound — keeps the way back from positions in the script that ran to the script the model
 * wrote, and turns a script that is neither JavaScript nor TypeScript into a syntax error that
 * says what was expected, before any engine starts.
 */
import { prepareScript, stepsMap, type Normalization, type PreparedScript } from '../runtime/js/normalize/script.ts';
import type { NormalizePool } from '../runtime/js/normalize/pool.ts';
import { identity, type PositionMap } from '../runtime/js/normalize/edits.ts';
import type { ScriptLanguage } from './options.ts';
import type { RunReport } from './result.ts';

export type { Normalization } from '../runtime/js/normalize/script.ts';

/**
 * Largest JavaScript prepared on the host's own thread: 4 KiB. Every step there is linear in the
 * script (the fence scan, acorn, the rewrites); the slowest acorn input measured (regular
 * expression literals, ~2 µs a byte) costs ≲ 10 ms at this size, and most model-written scripts
 * are smaller, so `return 1` pays no thread hand-off. A larger script, and any script that needs
 * the TypeScript stripper, is prepared on the normalize pool's threads. Python's only step is
 * the fence scan (linear, ~1 ms at the 256 KiB code limit): it always stays on the host.
 */
export const HOST_PREPARE_MAX_BYTES = 4 * 1024;

/** The script to run and the normalizations that produced it (empty when it runs as written). */
export interface NormalizedScript {
  code: string;
  normalized: Normalization[];
  /** From a position in `code` to the same place in the script as written (identity when nothing moved). */
  positions: PositionMap;
  /** Set when the script parses neither as JavaScript nor as TypeScript: report it, do not run it. */
  syntaxError?: { message: string; stack: string; line: number; column: number };
}

function normalizedOf({ steps, ...prepared }: PreparedScript): NormalizedScript {
  return { ...prepared, positions: stepsMap(steps) };
}

/**
 * Applies the normalizations that fit `language`, all on the calling thread (tests and benches;
 * the tool uses {@link prepareForRun}). Code that needs none is returned unchanged.
 */
export function normalizeScript(code: string, language: ScriptLanguage): NormalizedScript {
  return normalizedOf(prepareScript(code, language)!);
}

/**
 * The script normalized for a run: on the host's thread when that is provably cheap, otherwise
 * on `pool`'s threads (bounded in time; a failure or a timeout is a sentence for the model).
 */
export async function prepareForRun(
  code: string,
  language: ScriptLanguage,
  pool: NormalizePool,
  conversation: string,
): Promise<{ ok: true; script: NormalizedScript } | { ok: false; message: string }> {
  if (language === 'python' || code.length <= HOST_PREPARE_MAX_BYTES) {
    const prepared = prepareScript(code, language, false);
    if (prepared !== undefined) return { ok: true, script: normalizedOf(prepared) };
  }
  const outcome = await pool.prepare(code, language, conversation);
  return outcome.ok ? { ok: true, script: normalizedOf(outcome.prepared) } : outcome;
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
