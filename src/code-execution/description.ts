/**
 * The model-facing description of `code_execution`, generated from the tools scripts may call:
 * a short usage guide, then TypeScript declarations for JavaScript and Python signatures for
 * Python. It never lists `code_execution` itself.
 *
 * It stays within `maxChars`: when the full declarations would not fit, it lists each tool's
 * name and a one-line summary (shorter summaries, then names only, as the list grows), and
 * scripts read full declarations with `describe(name)` and find tools with `searchTools(query)`.
 *
 * {@link describeCodeExecution} is a pure function of the tool list and the options, so a
 * caller may cache its text per registry version.
 */
import { renderDeclarations, renderPythonStubs, type ToolDescriptor } from '../runtime/declarations/index.ts';
import type { RegisteredTool } from '../host/types.ts';
import type { ScriptLanguage } from './options.ts';
import { scriptPath } from '../runtime/names.ts';
import { clipSummary, firstSentence, HELPER_DESCRIPTORS } from './tool-search.ts';
import { describeSessionsAndHelpers } from './description-sessions.ts';
import { describeContent } from './description-content.ts';

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

export interface DescriptionOptions {
  defaultMs: number;
  maxMs: number;
  /** Longest description; past it the compact form is used (default 8192). */
  maxChars?: number;
}

/** The descriptors the renderers read, in the registry's field names. */
export function toolDescriptors(tools: readonly RegisteredTool[]): ToolDescriptor[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
  }));
}

const JS_INTRO =
  'language "javascript" (default): the code is the body of an async function. Use `await`, `return` the result (it must be JSON-serializable), log with console.log. Tools are `await tools.<name>(args)`; a name that is not an identifier is also `tools["server--tool"]`. No require, import, process, timers or network.';
const PY_INTRO =
  'language "python": top-level await works; tools are `await tools.<name>({...})` (also `tools["server--tool"]`), usable with asyncio.gather. print() is captured; the value of a final expression is returned. Globals persist between runs in the same conversation.';

function head(options: DescriptionOptions): string[] {
  return [
    USAGE_GUIDE,
    `Every call the script makes is a real tool call, checked and reported like your own. time_limit_ms defaults to ${options.defaultMs} and is capped at ${options.maxMs}. A tool that fails raises a ToolError carrying its message.`,
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

function compactDescription(list: readonly ToolDescriptor[], languages: readonly ScriptLanguage[], options: DescriptionOptions, maxChars: number): string {
  const sorted = [...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const parts = head(options);
  if (languages.includes('javascript')) parts.push('', JS_INTRO);
  if (languages.includes('python')) parts.push('', PY_INTRO);
  parts.push('', describeSessionsAndHelpers(languages), '', describeContent(languages));
  const intro = (how: string) =>
    `${sorted.length} tools, too many to declare here: ${how}. Before calling one, read its full declaration (arguments and result) with \`await describe("name")\`; find tools with \`await searchTools("words")\` (ranked names and summaries). Neither is a tool call.`;
  const fixed = [...parts, '', intro('listed by name, grouped by server ("x--: a, b" is x--a and x--b)'), '```', '```'].join('\n').length;
  const room = maxChars - fixed;
  const fits = (lines: string[]) => lines.join('\n').length <= room;
  const finish = (how: string, lines: string[]) => [...parts, '', intro(how), '```', ...lines, '```'].join('\n');
  // Each tool's first sentence once; only its cut changes from one attempt to the next.
  const sentences = sorted.map((t) => firstSentence(t.description));
  for (const max of [120, 80, 50, 30]) {
    const lines = sorted.map((t, i) => {
      const summary = clipSummary(sentences[i]!, max);
      return summary === '' ? t.name : `${t.name}: ${summary}`;
    });
    if (fits(lines)) return finish('listed by name and one-line summary', lines);
  }
  const grouped = namesOnly(sorted);
  if (fits(grouped)) return finish('listed by name, grouped by server ("x--: a, b" is x--a and x--b)', grouped);
  // Still too long: as many names as fit, then how many were left out.
  const names = sorted.map((t) => t.name);
  let text = '';
  let shown = 0;
  for (const name of names) {
    const next = text === '' ? name : `${text}, ${name}`;
    if (next.length + 60 > room) break;
    text = next;
    shown += 1;
  }
  return finish('the first names listed', [`${text}${shown < names.length ? `, … and ${names.length - shown} more (searchTools finds them)` : ''}`]);
}

/**
 * Fewer characters than the full description has: each language's declarations name every
 * tool in a declaration of its own, by at least the last segment of its script path. Lets a
 * large tool list skip rendering declarations (about 0.3 s at 1,000 tools) that cannot fit.
 */
export function fullLengthLowerBound(list: readonly ToolDescriptor[]): number {
  let chars = 0;
  for (const t of list) chars += scriptPath(t.name).at(-1)!.length;
  return chars;
}

/**
 * The description: the full declarations when they fit within `options.maxChars`, otherwise
 * the compact list. Deterministic for a given tool list and options.
 */
export function describeCodeExecution(tools: readonly RegisteredTool[], languages: readonly ScriptLanguage[], options: DescriptionOptions): string {
  const maxChars = options.maxChars ?? 8192;
  const list = toolDescriptors(tools);
  if (fullLengthLowerBound(list) <= maxChars) {
    const full = fullDescription(list, languages, options);
    if (full.length <= maxChars) return full;
  }
  return compactDescription(list, languages, options, maxChars);
}
