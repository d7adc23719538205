/**
 * Turns a TypeScript script into the JavaScript the engines run, with amaro (Node's own
 * type stripper: swc compiled to WebAssembly). Types are replaced by spaces (amaro's
 * strip-only mode), so every line and column stays where the model wrote it; only scripts
 * with constructs that need code (`enum`, `namespace`, parameter properties) take the
 * transform mode, whose reprinted output comes with a source map for the way back.
 *
 * amaro is loaded on the first script that needs it (about 50–100 ms, once per process), so
 * JavaScript never pays for it. The script is wrapped in an async function while it is
 * transformed, as the runtimes run it (top-level `return` and `await`); a script with
 * `export default` is transformed as a module instead. Pure apart from loading amaro.
 */
import { createRequire } from 'node:module';
import { identity, type PositionMap } from './edits.ts';
import { decodeMappings, originalPosition, type Segment } from './source-map.ts';

/** Why TypeScript was rejected: swc's message ("Expected ',', got ';'"), 1-based line and column. */
export interface TypeScriptFailure {
  message: string;
  line: number;
  column: number;
}

/**
 * The way back from a transformed script's positions, as data (it crosses a thread): the
 * decoded source map and the offsets of the wrapper. {@link sourcePositions} makes it a map.
 */
export interface SourcePositions {
  lines: Segment[][];
  lineOffset: number;
  outOffset: number;
  scriptLines: number;
}

export type Stripped =
  | { ok: true; code: string; map: PositionMap; transformed: boolean; source?: SourcePositions }
  | { ok: false; error: TypeScriptFailure };

interface SwcError {
  code: 'UnsupportedSyntax' | 'InvalidSyntax';
  message: string;
  startLine: number;
  startColumn: number;
}
type TransformSync = (source: string, options: { mode: 'strip-only' | 'transform'; sourceMap?: boolean; filename?: string }) => { code: string; map?: string };

let transformSync: TransformSync | undefined;

function amaro(): TransformSync {
  transformSync ??= (createRequire(import.meta.url)('amaro') as { transformSync: TransformSync }).transformSync;
  return transformSync;
}

/** Whether amaro has been loaded in this process (the bench and tests check JavaScript never loads it). */
export function typeScriptLoaded(): boolean {
  return transformSync !== undefined;
}

const HEAD = 'async function __toolcell_script__() {\n';
const TAIL = '\n}';

function isSwcError(error: unknown): error is SwcError {
  return typeof error === 'object' && error !== null && typeof (error as SwcError).startLine === 'number' && /Syntax$/.test(String((error as SwcError).code));
}

/** The script as JavaScript, or why it is not valid TypeScript either. */
export function stripTypeScript(code: string): Stripped {
  // `export default` is only valid at a module's top level (where `return` is not), so such a
  // script is tried as a module first: inside the wrapper it could only fail. The wrapped form
  // stays the fallback, and its error the one reported, for a match in a string or comment.
  if (!/\bexport\s+default\b/.test(code)) return attempt(code, true);
  const module = attempt(code, false);
  return module.ok ? module : attempt(code, true);
}

function attempt(code: string, wrap: boolean): Stripped {
  const head = wrap ? HEAD : '';
  const source = wrap ? HEAD + code + TAIL : code;
  const lineOffset = wrap ? 1 : 0;
  const transform = amaro();
  try {
    const out = transform(source, { mode: 'strip-only' }).code;
    // Strip-only blanks types in place: the same length, every position kept.
    if (out.length === source.length) return { ok: true, code: wrap ? out.slice(head.length, out.length - TAIL.length) : out, map: identity, transformed: false };
  } catch (error) {
    if (!isSwcError(error)) throw error;
    if (error.code === 'InvalidSyntax') {
      // An error on the wrapper's closing line means the script ended too early.
      const line = error.startLine - lineOffset;
      const lines = code.split('\n').length;
      if (line > lines) return { ok: false, error: { message: `${error.message} (at the end of the script)`, line: lines, column: code.length - code.lastIndexOf('\n') } };
      return { ok: false, error: { message: error.message, line: Math.max(1, line), column: (line === 0 ? 0 : error.startColumn) + 1 } };
    }
  }
  return transformed(code, source, wrap, lineOffset);
}

/** `enum` and friends: amaro's transform mode, reprinted, with a source map back to the script. */
function transformed(code: string, source: string, wrap: boolean, lineOffset: number): Stripped {
  let result: { code: string; map?: string };
  try {
    result = amaro()(source, { mode: 'transform', sourceMap: true });
  } catch (error) {
    if (!isSwcError(error)) throw error;
    return { ok: false, error: { message: error.message, line: Math.max(1, error.startLine - lineOffset), column: error.startColumn + 1 } };
  }
  let out = result.code;
  let outOffset = 0;
  if (wrap) {
    // swc prints the wrapper's head as the first line and its closing brace last.
    const first = out.indexOf('\n');
    const last = out.lastIndexOf('}');
    if (!out.startsWith('async function __toolcell_script__()') || first === -1 || last < first) {
      return { ok: false, error: { message: 'the TypeScript transform produced unexpected output', line: 1, column: 1 } };
    }
    out = out.slice(first + 1, last);
    outOffset = 1;
  }
  const lines = result.map === undefined ? [] : decodeMappings((JSON.parse(result.map) as { mappings: string }).mappings);
  const way: SourcePositions = { lines, lineOffset, outOffset, scriptLines: code.split('\n').length };
  return { ok: true, code: out, map: sourcePositions(way), transformed: true, source: way };
}

/** The position map of a transformed script: through its source map back to the script. */
export function sourcePositions({ lines, lineOffset, outOffset, scriptLines }: SourcePositions): PositionMap {
  return ({ line, column }) => {
    const found = originalPosition(lines, line - 1 + outOffset, column - 1);
    if (found === undefined) return { line, column };
    return { line: Math.min(scriptLines, Math.max(1, found.line - lineOffset + 1)), column: found.column + 1 };
  };
}
