/**
 * Finds the tools a script's text references, with the lines they appear on, so that one
 * up-front approval request can list them. Purely textual and deliberately generous: a name in
 * a comment or a string still counts (asking once too many is safe, running unasked is not).
 * What it cannot see — computed names, a `tools` object passed around under another name — is
 * what the just-in-time backstop is for.
 */
import { buildAliasTable } from '../runtime/names.ts';

export type ScanLanguage = 'javascript' | 'python';

// `tools.x__y`, `tools?.x__y`, `tools["x--y"]`, `tools['x--y']`, and Python's
// `getattr(tools, "x--y")`; `tools` must not be the tail of a longer name or a member.
const JS_REFERENCE = /(?<![\w$.])tools\s*(?:\?\.\s*|\.\s*)(?:([A-Za-z_$][\w$]*)|\[\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)')\s*\])|(?<![\w$.])tools\s*\[\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`\\$\n]*)`)\s*\]/g;
const PY_REFERENCE = /(?<![\w.])tools\s*\.\s*([A-Za-z_]\w*)|(?<![\w.])tools\s*\[\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)')\s*\]|getattr\(\s*tools\s*,\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)')/g;

/**
 * The tools among `toolNames` that `code` references, each with its 1-based lines in order.
 * Names are matched as written (`tools["x--y"]`) and by their identifier alias (`tools.x__y`);
 * an alias two tools share names neither, as in the runtimes.
 */
export function scanToolReferences(code: string, language: ScanLanguage, toolNames: readonly string[]): Map<string, number[]> {
  const known = new Set(toolNames);
  const { aliases } = buildAliasTable(toolNames);
  const lineStarts = [0];
  for (let i = code.indexOf('\n'); i !== -1; i = code.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineOf = (index: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const found = new Map<string, number[]>();
  const pattern = new RegExp(language === 'python' ? PY_REFERENCE : JS_REFERENCE);
  for (const match of code.matchAll(pattern)) {
    const groups = match.slice(1);
    const identifier = groups[0];
    const quoted = groups.slice(1).find((g) => g !== undefined);
    let tool: string | undefined;
    if (identifier !== undefined) tool = known.has(identifier) ? identifier : aliases.get(identifier);
    else if (quoted !== undefined) {
      const name = unescape(quoted);
      tool = known.has(name) ? name : aliases.get(name);
    }
    if (tool === undefined) continue;
    const line = lineOf(match.index);
    const lines = found.get(tool);
    if (!lines) found.set(tool, [line]);
    else if (lines[lines.length - 1] !== line) lines.push(line);
  }
  return found;
}

/** The common string escapes; a name with anything stranger is simply not matched. */
function unescape(text: string): string {
  return text.replace(/\\(.)/g, (_m, c: string) => c);
}
