/**
 * Strips one Markdown fence around a model-written script (```js … ```, ```ts, ```python, bare
 * ```), and, for JavaScript, the prose a model writes around one fenced block ("Here is the
 * script:" … "This returns …"), keeping line numbers: every line before the code (prose, the
 * opening fence) becomes an empty line, so an error on line N still names line N of what the
 * model wrote. Fences are text, so this is matched as text; code structure is never decided here.
 *
 * Linear time by construction (a bound of docs/security.md, "Host-side bounds"): one pass finds
 * the line starts, and each line is read by hand at most once or twice, with no regular
 * expression that could backtrack (the old closing-fence expression took 9–14 s on 100 KB).
 * Pure: no I/O.
 */

/** Language tags a fence may carry, by the script language they fit. */
export const FENCE_TAGS = {
  javascript: ['', 'js', 'javascript', 'ts', 'typescript', 'mjs', 'jsx', 'tsx'],
  python: ['', 'py', 'python', 'python3'],
} as const;

export type FenceLanguage = keyof typeof FENCE_TAGS;

/** A line of the script: `code.slice(start, end)`, without its line break (nor a `\r` before it). */
interface Line {
  start: number;
  end: number;
}

/** Every line's start and end, in typed arrays: one allocation each, however many lines. */
interface Lines {
  count: number;
  starts: Uint32Array;
  ends: Uint32Array;
}

/** A fence line's marker (`` ` `` or `~`), how many, and its language tag ('' for none). */
interface FenceLine {
  char: string;
  count: number;
  tag: string;
}

function splitLines(code: string): Lines {
  let count = 1;
  for (let nl = code.indexOf('\n'); nl !== -1; nl = code.indexOf('\n', nl + 1)) count++;
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  let start = 0;
  for (let i = 0; i < count; i++) {
    const nl = code.indexOf('\n', start);
    const stop = nl === -1 ? code.length : nl;
    starts[i] = start;
    ends[i] = stop > start && code.charCodeAt(stop - 1) === 13 ? stop - 1 : stop;
    start = nl + 1;
  }
  return { count, starts, ends };
}

const line = (lines: Lines, i: number): Line => ({ start: lines.starts[i]!, end: lines.ends[i]! });

const isBlankOrTab = (c: number) => c === 32 || c === 9;
const isTagChar = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 43 || c === 45;

/** Where the line's fence marker starts (after spaces and tabs) and its length, or undefined: one scan. */
function markerAt(code: string, line: Line): { char: string; count: number; after: number } | undefined {
  let i = line.start;
  while (i < line.end && isBlankOrTab(code.charCodeAt(i))) i++;
  const c = code.charCodeAt(i);
  if (i >= line.end || (c !== 96 && c !== 126)) return undefined;
  let j = i;
  while (j < line.end && code.charCodeAt(j) === c) j++;
  return j - i >= 3 ? { char: code[i]!, count: j - i, after: j } : undefined;
}

/** The line as a whole fence line (marker, optional tag, nothing else), or undefined. */
function fenceLine(code: string, line: Line): FenceLine | undefined {
  const marker = markerAt(code, line);
  if (marker === undefined) return undefined;
  let i = marker.after;
  while (i < line.end && isBlankOrTab(code.charCodeAt(i))) i++;
  const tagStart = i;
  while (i < line.end && isTagChar(code.charCodeAt(i))) i++;
  const tag = code.slice(tagStart, i);
  while (i < line.end && isBlankOrTab(code.charCodeAt(i))) i++;
  return i === line.end ? { char: marker.char, count: marker.count, tag } : undefined;
}

/** Whether the line is only whitespace (what `trim()` removes), read by character code. */
function isBlank(code: string, { start, end }: Line): boolean {
  for (let i = start; i < end; i++) {
    const c = code.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) continue;
    if (c < 128 || code[i]!.trim() !== '') return false;
  }
  return true;
}

const opens = (fence: FenceLine | undefined, language: FenceLanguage): fence is FenceLine =>
  fence !== undefined && (FENCE_TAGS[language] as readonly string[]).includes(fence.tag.toLowerCase());
const closes = (fence: FenceLine | undefined, open: FenceLine) => fence !== undefined && fence.tag === '' && fence.char === open.char && fence.count >= open.count;

/** Lines `from`..`to` (exclusive) as the script to run, behind one empty line per line before them. */
function body(code: string, lines: Lines, from: number, to: number): string {
  const text = to > from ? code.slice(lines.starts[from], lines.ends[to - 1]) : '';
  return '\n'.repeat(from) + text;
}

/** The script without its fence, or `undefined` when it is not wrapped in exactly one fence. */
export function stripFence(code: string, language: FenceLanguage): string | undefined {
  const lines = splitLines(code);
  let first = 0;
  while (first < lines.count && isBlank(code, line(lines, first))) first++;
  let last = lines.count - 1;
  while (last > first && isBlank(code, line(lines, last))) last--;
  if (last <= first) return undefined;
  const open = fenceLine(code, line(lines, first));
  if (!opens(open, language) || !closes(fenceLine(code, line(lines, last)), open)) return undefined;
  // A second fence inside means several blocks or prose between them: not one fenced script.
  for (let i = first + 1; i < last; i++) if (markerAt(code, line(lines, i)) !== undefined) return undefined;
  return body(code, lines, first + 1, last);
}

/**
 * The one fenced block of a script that is prose around it ("Here is the script:\n```ts\n…\n```\n
 * It returns …"): the block's lines, every line before them empty, the prose after dropped; or
 * `undefined` when there is not exactly one opening fence for `language` and its closing fence
 * (a line beginning with a fence marker anywhere else, or none, and nothing is taken). The caller
 * decides whether the script as written is code after all (normalize.ts: only a script that does
 * not parse as written loses its prose).
 */
export function stripProse(code: string, language: FenceLanguage): string | undefined {
  const lines = splitLines(code);
  const markers: number[] = [];
  for (let i = 0; i < lines.count; i++) {
    if (markerAt(code, line(lines, i)) === undefined) continue;
    if (markers.push(i) > 2) return undefined;
  }
  if (markers.length !== 2) return undefined;
  const [from, to] = markers as [number, number];
  const open = fenceLine(code, line(lines, from));
  if (!opens(open, language) || !closes(fenceLine(code, line(lines, to)), open)) return undefined;
  return body(code, lines, from + 1, to);
}
