/**
 * `describe(name)` and `searchTools(query)`: script helpers that let a model work with more
 * tools than a description can list. They are helper globals (`kind: 'global'`), answered on
 * the host from the tool list alone: never dispatched, so they open no call, send no
 * lifecycle event and are not in the result's `calls`.
 *
 * Everything here is a pure function of the tool list (and the script's language), so a
 * caller may cache what it renders.
 */
import { renderDeclarations, renderPythonStubs, type ToolDescriptor } from '../runtime/declarations/index.ts';
import { closestNames, echoName, MAX_RANKED_NAME_CHARS, sanitizeToolName } from '../runtime/names.ts';
import type { ToolBinding } from '../runtime/types.ts';
import type { ScriptLanguage } from './options.ts';

/** Most results `searchTools` returns unless asked for fewer. */
export const SEARCH_LIMIT = 10;

/** Longest one-line summary kept for a tool. */
export const MAX_SUMMARY_CHARS = 120;

/** The two helpers as the declaration renderers see them (top-level functions). */
export const HELPER_DESCRIPTORS: readonly ToolDescriptor[] = [
  {
    name: 'describe',
    kind: 'global',
    description: "The full declaration of one tool (by host name or identifier), in this script's language. Not a tool call.",
    inputSchema: { type: 'string' },
    outputSchema: { type: 'string' },
  },
  {
    name: 'searchTools',
    kind: 'global',
    description: 'Tools whose name or description match the words of the query, best first (at most 10). Not a tool call.',
    inputSchema: { type: 'string' },
    outputSchema: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, summary: { type: 'string' } },
        required: ['name', 'summary'],
        additionalProperties: false,
      },
    },
  },
];

/** A description's first sentence (or line) on one line, whole. */
export function firstSentence(description: string | undefined): string {
  if (!description) return '';
  const flat = description.replace(/\s+/g, ' ').trim();
  return /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
}

/** `sentence` cut to at most `max` characters, with an ellipsis when cut. */
export function clipSummary(sentence: string, max = MAX_SUMMARY_CHARS): string {
  return sentence.length <= max ? sentence : `${sentence.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** A description's first sentence (or line) on one line, at most `max` characters. */
export function summaryOf(description: string | undefined, max = MAX_SUMMARY_CHARS): string {
  return clipSummary(firstSentence(description), max);
}

/**
 * Longest query `searchTools` reads, in characters, and most distinct words it ranks by; the
 * rest of a longer query is ignored, so a script's megabyte query costs the host no more
 * than a long sentence does.
 */
export const MAX_QUERY_CHARS = 1024;
export const MAX_QUERY_WORDS = 32;

/** Lower-case words of a name or a text: `x--read_file` → x, read, file. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * Ranks tools against a query: a query word that is a word of the name weighs most, one
 * inside the name next, one in the description least. Ties go by name (code-unit order).
 */
export function searchTools(tools: readonly ToolDescriptor[], query: string, limit = SEARCH_LIMIT): { name: string; summary: string }[] {
  const wanted = [...new Set(words(query.slice(0, MAX_QUERY_CHARS)))].slice(0, MAX_QUERY_WORDS);
  if (wanted.length === 0) return [];
  const scored = tools.map((tool) => {
    const nameWords = new Set(words(tool.name));
    const name = tool.name.toLowerCase();
    const text = (tool.description ?? '').toLowerCase();
    const textWords = new Set(words(tool.description ?? ''));
    let score = 0;
    for (const w of wanted) {
      if (nameWords.has(w)) score += 4;
      else if (name.includes(w)) score += 2;
      if (textWords.has(w)) score += 1.5;
      else if (text.includes(w)) score += 0.5;
    }
    return { tool, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0))
    .slice(0, Math.max(0, limit))
    .map((s) => ({ name: s.tool.name, summary: summaryOf(s.tool.description) }));
}

/** The tool a script means by `name`: its host name, or the identifier scripts call it by. */
export function findTool(tools: readonly ToolDescriptor[], name: string): ToolDescriptor | undefined {
  return tools.find((t) => t.name === name) ?? tools.find((t) => sanitizeToolName(t.name) === name);
}

/** The full declaration of one tool in the script's language. */
export function describeTool(tools: readonly ToolDescriptor[], name: unknown, language: ScriptLanguage): string {
  if (typeof name !== 'string' || name === '') throw new TypeError("describe() needs a tool name, e.g. describe('server--tool')");
  const tool = findTool(tools, name);
  if (!tool) {
    const near = closestNames(name, tools.map((t) => t.name));
    throw new Error(`No tool named "${echoName(name)}".${near.length ? ` Closest: ${near.join(', ')}.` : ''} searchTools('words') finds tools.`);
  }
  return language === 'javascript' ? renderDeclarations([tool]) : renderPythonStubs([tool]);
}

/** The two helpers as script bindings for one execution over `tools`. */
export function toolSearchBindings(tools: readonly ToolDescriptor[], language: ScriptLanguage): ToolBinding[] {
  // The sandbox cuts the argument before it crosses (ToolBinding.maxArgumentChars): a name
  // longer than every tool's (and than the ranking's cut) names none of them, so nothing the
  // host needs is lost; a query past MAX_QUERY_CHARS is never read.
  const longestName = tools.reduce((most, t) => Math.max(most, t.name.length), 0);
  return [
    {
      name: 'describe',
      kind: 'global',
      maxArgumentChars: Math.max(MAX_RANKED_NAME_CHARS, longestName) + 1,
      invoke: async (name: unknown) => describeTool(tools, name, language),
    },
    {
      name: 'searchTools',
      kind: 'global',
      maxArgumentChars: MAX_QUERY_CHARS,
      invoke: async (args: unknown) => {
        const query = typeof args === 'string' ? args : (args as { query?: unknown } | null)?.query;
        if (typeof query !== 'string') throw new TypeError("searchTools() needs a query string, e.g. searchTools('read file')");
        const limit = typeof args === 'object' && args !== null && typeof (args as { limit?: unknown }).limit === 'number' ? (args as { limit: number }).limit : SEARCH_LIMIT;
        return searchTools(tools, query, limit);
      },
    },
  ];
}
