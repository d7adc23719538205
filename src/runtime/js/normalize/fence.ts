/**
 * Strips one Markdown fence around a model-written script (```js … ```, ```ts, ```python, bare
 * ```), keeping line numbers: the opening fence's line becomes an empty line, so an error on
 * line N still names line N of what the model wrote. Fences are text, so this is matched as
 * text; code structure is never decided here. Pure: no I/O.
 */

/** Language tags a fence may carry, by the script language they fit. */
export const FENCE_TAGS = {
  javascript: ['', 'js', 'javascript', 'ts', 'typescript', 'mjs', 'jsx', 'tsx'],
  python: ['', 'py', 'python', 'python3'],
} as const;

export type FenceLanguage = keyof typeof FENCE_TAGS;

/** The script without its fence, or `undefined` when it is not wrapped in exactly one fence. */
export function stripFence(code: string, language: FenceLanguage): string | undefined {
  const open = /^\s*(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+-]*)[ \t]*\r?\n/.exec(code);
  if (open === null) return undefined;
  const [whole, marker, tag] = open;
  if (!(FENCE_TAGS[language] as readonly string[]).includes(tag!.toLowerCase())) return undefined;
  const rest = code.slice(whole!.length);
  const close = new RegExp(`\\r?\\n[ \\t]*${marker![0] === '`' ? '`' : '~'}{${marker!.length},}[ \\t]*\\s*$`).exec(rest);
  if (close === null) return undefined;
  const body = rest.slice(0, close.index);
  // A second fence inside means several blocks or prose between them: not one fenced script.
  if (body.split(/\r?\n/).some((line) => /^[ \t]*(`{3,}|~{3,})/.test(line))) return undefined;
  const leadingLines = whole!.split('\n').length - 1;
  return '\n'.repeat(leadingLines) + body;
}
