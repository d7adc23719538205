/**
 * The middle form of the `code_execution` description, between all declarations and names
 * only: full declarations for as many tools as fit the budget, a one-line summary for each of
 * the rest. Which tools get declarations is decided by size alone (smallest first, so the most
 * tools are declared): ranked by the size of their schemas and description, each candidate's
 * cost measured by rendering it on its own; the text is then rendered and checked against the
 * budget, dropping the largest chosen tools until it fits. Pure.
 */
import { renderDeclarations, renderPythonStubs, type ToolDescriptor } from '../runtime/declarations/index.ts';
import type { ScriptLanguage } from './options.ts';
import { clipSummary, HELPER_DESCRIPTORS } from './tool-search.ts';
import { PARTIAL_SUMMARY_CHARS, type DescriptionMemo } from './description-memo.ts';

export { PARTIAL_SUMMARY_CHARS };

/** Pieces of the description around the declarations, given by description.ts. */
export interface PartialFrame {
  /** Usage guide and limits: everything before the language sections. */
  parts: readonly string[];
  jsIntro: string;
  pyIntro: string;
  /** Sessions and helpers: after the language sections. */
  tail: string;
}

function render(declared: readonly ToolDescriptor[], summarized: readonly ToolDescriptor[], languages: readonly ScriptLanguage[], frame: PartialFrame, memo: DescriptionMemo): string {
  const parts = [...frame.parts];
  const all = [...declared, ...HELPER_DESCRIPTORS];
  if (languages.includes('javascript')) parts.push('', frame.jsIntro, '```ts', renderDeclarations(all).trimEnd(), '```');
  if (languages.includes('python')) parts.push('', frame.pyIntro, '```python', renderPythonStubs(all).trimEnd(), '```');
  parts.push('', frame.tail);
  parts.push(
    '',
    `${summarized.length} more tools, too many to declare here, listed by name and one-line summary. Before calling one, read its full declaration (arguments and result) with \`await describe("name")\`; \`await searchTools("words")\` finds tools. Neither is a tool call.`,
    '```',
    ...summarized.map((t) => summaryLine(t, memo)),
    '```',
  );
  return parts.join('\n');
}

function summaryLine(t: ToolDescriptor, memo: DescriptionMemo): string {
  const summary = clipSummary(memo.facts(t).sentence, PARTIAL_SUMMARY_CHARS);
  return summary === '' ? t.name : `${t.name}: ${summary}`;
}

/**
 * The description with full declarations for as many tools as fit within `maxChars` and
 * summaries for the rest, or `undefined` when not even one tool's declarations fit beside the
 * summaries of the others (the caller then uses its compact list). `list`: the memo's latest
 * build, whose tools the memo also keeps sorted by name.
 */
export function partialDescription(
  list: readonly ToolDescriptor[],
  languages: readonly ScriptLanguage[],
  frame: PartialFrame,
  maxChars: number,
  memo: DescriptionMemo,
): string | undefined {
  // The summaries alone must leave room: a cheap check before any tool is rendered (the
  // memo's running total of every tool's summary line: at 10,000 tools no tool is looked at).
  const summaries = memo.summaryChars();
  // Before rendering even the skeleton (the helpers' declarations, ~1 ms): at 1,000 tools and
  // more the summaries alone overflow.
  if (summaries >= maxChars) return undefined;
  const skeleton = render([], [], languages, frame, memo).length;
  if (skeleton + summaries >= maxChars) return undefined;
  // From here on the summaries fit the budget, so the tools are few (a line each).
  const byName = memo.byName();
  const cost = new Map<ToolDescriptor, number>();
  const empty = (languages.includes('javascript') ? renderDeclarations([]).length : 0) + (languages.includes('python') ? renderPythonStubs([]).length : 0);
  const costOf = (t: ToolDescriptor): number => {
    let c = cost.get(t);
    if (c === undefined) {
      const declared = (languages.includes('javascript') ? renderDeclarations([t]).length : 0) + (languages.includes('python') ? renderPythonStubs([t]).length : 0);
      cost.set(t, (c = declared - empty - summaryLine(t, memo).length - 1));
    }
    return c;
  };
  // Smallest first, by the size of what the declarations are made from (cheap), so only the
  // tools that can fit are rendered on their own: at 300 tools the room is a handful of them.
  const proxy = new Map(byName.map((t) => [t, JSON.stringify([t.description ?? '', t.inputSchema, t.outputSchema ?? null]).length]));
  const bySize = [...byName].sort((a, b) => proxy.get(a)! - proxy.get(b)!);
  let total = skeleton + summaries;
  let count = 0;
  while (count < bySize.length && total + costOf(bySize[count]!) <= maxChars) total += costOf(bySize[count++]!);
  // Shared types and wrappers make the estimate inexact: render, and drop the largest chosen
  // tools until their estimated cost covers the excess (a few renders, not one per tool).
  while (count > 0) {
    const chosen = new Set(bySize.slice(0, count));
    // Declared in the registry's order, as the full description does.
    const text = render(
      list.filter((t) => chosen.has(t)),
      byName.filter((t) => !chosen.has(t)),
      languages,
      frame,
      memo,
    );
    if (text.length <= maxChars) return text;
    let excess = text.length - maxChars;
    do excess -= Math.max(1, costOf(bySize[--count]!));
    while (count > 0 && excess > 0);
  }
  return undefined;
}
