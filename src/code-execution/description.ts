/**
 * The model-facing description of `code_execution`, generated from the tools scripts may call:
 * a short usage guide, then TypeScript declarations for JavaScript and Python signatures for
 * Python. It never lists `code_execution` itself.
 *
 * It stays within `maxChars` (default {@link DEFAULT_DESCRIPTION_CHARS}): when the full
 * declarations would not fit, as many tools as fit keep theirs and the rest are listed by name
 * and one-line summary (description-partial.ts); when not even that fits, every tool is listed
 * by name and summary (shorter summaries, then names only, as the list grows). Scripts read
 * full declarations with `describe(name)` and find tools with `searchTools(query)`.
 *
 * {@link describeCodeExecution} is a pure function of the tool list and the options, so a
 * caller may cache its text per registry version.
 */
import { renderDeclarations, renderPythonStubs, type ToolDescriptor } from '../runtime/declarations/index.ts';
import type { RegisteredTool } from '../host/types.ts';
import type { ScriptLanguage } from './options.ts';
import { clipSummary, HELPER_DESCRIPTORS } from './tool-search.ts';
import { describeSessionsAndHelpers } from './description-sessions.ts';
import { describeContent } from './description-content.ts';
import { partialDescription } from './description-partial.ts';
import { DescriptionMemo, solidChars } from './description-memo.ts';
import { scriptPath } from '../runtime/names.ts';

/**
 * How to use code_execution well, first in the description. Kept short (≤ 600 characters, a
 * test checks): it is read on every turn.
 */
export const USAGE_GUIDE = [
  'Run a script that calls tools. Use it well:',
  '- Do the work in the script: loop, filter, join and count there; run independent calls together (Promise.all / asyncio.gather).',
  '- Return or print only what the answer needs; raw tool results never reach you unless the script returns them.',
  '- Before returning a large result, look at its shape (inspect(value), keys, lengths) and keep the part you need.',
].join('\n');

/**
 * How to use background scripts (code-execution/background/), one line after the guide; kept
 * within 160 characters (a test checks).
 */
export const BACKGROUND_GUIDE =
  'Long work: background: true answers {status:"running", scriptId} once wait_ms passes; then code_execution({action:"wait"|"status"|"cancel", scriptId}).';

/**
 * Default longest description, in characters (about 6,000 tokens). Measured on the official
 * servers' real listings with both languages declared (JavaScript alone in parentheses):
 * server-everything's 13 tools 14,476 (7,779), server-memory's 9 tools 16,512 (7,950),
 * server-filesystem's 14 tools 21,030 (10,278), all three together 45,267 (21,451); the text
 * without any tool is 3,361. So any one of them is declared in full, with room for a few more
 * tools; past it, as many tools as fit keep full declarations.
 */
export const DEFAULT_DESCRIPTION_CHARS = 24_000;

export interface DescriptionOptions {
  defaultMs: number;
  maxMs: number;
  /** Longest description (default {@link DEFAULT_DESCRIPTION_CHARS}). */
  maxChars?: number;
  /** Observed result schemas of tools that declare none. */
  learned?: (tool: string) => Record<string, unknown> | undefined;
  /** Changes whenever any learned schema does (with a memo, unchanged tools then skip `learned`). */
  learnedVersion?: number;
  /** Which of the tools the description lists (default: all); the same for every build of one memo. */
  include?: (tool: RegisteredTool) => boolean;
  /**
   * Per-tool pieces kept from earlier builds (description-memo.ts), so a rebuild after a change
   * of the tool set derives only the changed tools'. Without one, every tool is derived anew.
   */
  memo?: DescriptionMemo;
}

/**
 * The descriptors the renderers read, in the registry's field names. `learned`: the observed
 * result schema of a tool that declares none (learned-shapes.ts), rendered as its result type.
 */
export function toolDescriptors(tools: readonly RegisteredTool[], learned?: (tool: string) => Record<string, unknown> | undefined): ToolDescriptor[] {
  return tools.map((t) => {
    const output = t.outputSchema ?? learned?.(t.name);
    return {
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      ...(output ? { outputSchema: output } : {}),
    };
  });
}

const JS_INTRO =
  'language "javascript" (default): JavaScript or TypeScript (types are stripped), the body of an async function. Use `await`; `return` the result (JSON-serializable), or end with an expression: its value is returned. A lone `async () => {…}` or `export default` function is called. Log with console.log. Tools are `await tools.<name>(args)`; a name that is not an identifier is also `tools["server--tool"]`. No require, import, process, timers or network.';
const PY_INTRO =
  'language "python": top-level await works; tools are `await tools.<name>({...})` (also `tools["server--tool"]`), usable with asyncio.gather. print() is captured; the value of a final expression is returned. Globals persist between runs in the same conversation.';

function head(options: DescriptionOptions, background = true): string[] {
  return [
    USAGE_GUIDE,
    `Every call the script makes is a real tool call, checked and reported like your own. time_limit_ms defaults to ${options.defaultMs} and is capped at ${options.maxMs}. A tool that fails raises a ToolError carrying its message.`,
    ...(background ? [BACKGROUND_GUIDE] : []),
  ];
}

function fullDescription(list: readonly ToolDescriptor[], languages: readonly ScriptLanguage[], options: DescriptionOptions): string {
  const parts = head(options);
  const all = [...list, ...HELPER_DESCRIPTORS];
  if (languages.includes('javascript')) {
    parts.push('', JS_INTRO, '```ts', renderDeclarations(all).trimEnd(), '```');
  }
  if (languages.includes('python')) {
    parts.push('', PY_INTRO, '```python', renderPythonStubs(all).trimEnd(), '```');
  }
  parts.push('', describeSessionsAndHelpers(languages), '', describeContent(languages));
  return parts.join('\n');
}

/** `x--a, x--b` grouped under their server prefix: `x--: a, b`. */
function namesOnly(list: readonly ToolDescriptor[]): string[] {
  const groups = new Map<string, string[]>();
  for (const t of list) {
    const cut = t.name.indexOf('--');
    const prefix = cut > 0 ? t.name.slice(0, cut + 2) : '';
    const rest = cut > 0 ? t.name.slice(cut + 2) : t.name;
    const group = groups.get(prefix);
    if (group) group.push(rest);
    else groups.set(prefix, [rest]);
  }
  return [...groups].map(([prefix, names]) => (prefix === '' ? names.join(', ') : `${prefix}: ${names.join(', ')}`));
}

/**
 * The compact list; under a budget so small that even the names do not fit beside the
 * background guide, the guide is left out (the tools come first).
 */
function compactDescription(languages: readonly ScriptLanguage[], options: DescriptionOptions, maxChars: number, memo: DescriptionMemo): string {
  const text = compactWith(languages, options, maxChars, memo, true);
  return text.length <= maxChars ? text : compactWith(languages, options, maxChars, memo, false);
}

/** The compact list of the memo's latest build, its tools in name order. */
function compactWith(languages: readonly ScriptLanguage[], options: DescriptionOptions, maxChars: number, memo: DescriptionMemo, background: boolean): string {
  const count = memo.count;
  const parts = head(options, background);
  if (languages.includes('javascript')) parts.push('', JS_INTRO);
  if (languages.includes('python')) parts.push('', PY_INTRO);
  parts.push('', describeSessionsAndHelpers(languages), '', describeContent(languages));
  const intro = (how: string) =>
    `${count} tools, too many to declare here: ${how}. Before calling one, read its full declaration (arguments and result) with \`await describe("name")\`; find tools with \`await searchTools("words")\` (ranked names and summaries). Neither is a tool call.`;
  const fixed = [...parts, '', intro('listed by name, grouped by server ("x--: a, b" is x--a and x--b)'), '```', '```'].join('\n').length;
  const room = maxChars - fixed;
  const fits = (lines: string[]) => lines.join('\n').length <= room;
  const finish = (how: string, lines: string[]) => [...parts, '', intro(how), '```', ...lines, '```'].join('\n');
  // Every line holds at least its tool's name, every group its tools' names past the prefix,
  // and one character between two of them: when those alone overflow, no attempt below can
  // fit, and none is built (at 10,000 tools each attempt is a list of 10,000 lines). Both are
  // the memo's running totals: no tool is looked at to know them.
  const names = memo.nameChars(true);
  const rests = memo.nameChars(false);
  // Only when some attempt can fit, so the tools are few (the names alone fit the budget).
  const sorted = names > room && rests > room ? [] : memo.byName();
  // Each tool's first sentence once; only its cut changes from one attempt to the next.
  const sentences = names > room ? [] : sorted.map((t) => memo.facts(t).sentence);
  for (const max of names > room ? [] : [120, 80, 50, 30]) {
    // The attempt's length first, from the cut sentences' lengths: only the one that fits is
    // built (at 1,000 tools four attempts of 1,000 lines were a 5–10 ms step on a loaded machine).
    let length = sorted.length - 1;
    for (let i = 0; i < sorted.length; i++) {
      const sentence = sentences[i]!;
      const cut = sentence.length <= max ? sentence.length : clipSummary(sentence, max).length;
      length += sorted[i]!.name.length + (cut === 0 ? 0 : 2 + cut);
      if (length > room) break;
    }
    if (length > room) continue;
    const lines = sorted.map((t, i) => {
      const summary = clipSummary(sentences[i]!, max);
      return summary === '' ? t.name : `${t.name}: ${summary}`;
    });
    if (fits(lines)) return finish('listed by name and one-line summary', lines);
  }
  const grouped = rests > room ? [] : namesOnly(sorted);
  if (rests <= room && fits(grouped)) return finish('listed by name, grouped by server ("x--: a, b" is x--a and x--b)', grouped);
  // Still too long: as many names as fit, then how many were left out.
  let text = '';
  let shown = 0;
  for (let i = 0; i < count; i++) {
    const name = memo.nameAt(i);
    const next = text === '' ? name : `${text}, ${name}`;
    if (next.length + 60 > room) break;
    text = next;
    shown += 1;
  }
  return finish('the first names listed', [`${text}${shown < count ? `, … and ${count - shown} more (searchTools finds them)` : ''}`]);
}

/**
 * Fewer characters than the full description has: each language's declarations name every
 * tool in a declaration of its own, by at least the last segment of its script path, and the
 * TypeScript declarations carry each tool's description whole in its doc comment (every
 * character that is not white space; `languages` without JavaScript: names only). Lets a
 * large tool list skip rendering declarations (about 0.3 s at 1,000 tools) that cannot fit.
 */
export function fullLengthLowerBound(list: readonly ToolDescriptor[], languages: readonly ScriptLanguage[] = []): number {
  const docs = languages.includes('javascript');
  let chars = 0;
  for (const t of list) chars += scriptPath(t.name).at(-1)!.length + (docs ? solidChars(t.description) : 0);
  return chars;
}

/**
 * The description: the full declarations when they fit within `options.maxChars`, otherwise
 * full declarations for as many tools as fit and summaries for the rest, otherwise the compact
 * list. Deterministic for a given tool list and options.
 */
export function describeCodeExecution(tools: readonly RegisteredTool[], languages: readonly ScriptLanguage[], options: DescriptionOptions): string {
  const maxChars = options.maxChars ?? DEFAULT_DESCRIPTION_CHARS;
  const memo = options.memo ?? new DescriptionMemo();
  const list = memo.descriptors(tools, { learned: options.learned, learnedVersion: options.learnedVersion, include: options.include });
  // The memo keeps fullLengthLowerBound's sum over the listed tools as a running total.
  if (memo.lowerBound(languages.includes('javascript')) <= maxChars) {
    const full = fullDescription(list, languages, options);
    if (full.length <= maxChars) return full;
  }
  const frame = { parts: head(options), jsIntro: JS_INTRO, pyIntro: PY_INTRO, tail: `${describeSessionsAndHelpers(languages)}\n\n${describeContent(languages)}` };
  return partialDescription(list, languages, frame, maxChars, memo) ?? compactDescription(languages, options, maxChars, memo);
}
