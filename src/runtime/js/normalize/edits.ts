/**
 * Text edits made to a script by the normalizations that rewrite it (calling a lone function,
 * returning a final expression, unwrapping `export default`), and the way back: a position in
 * the edited script mapped to the position the model wrote. Edits never add or remove a line
 * break, so lines are kept and only columns on an edited line move. Pure: no I/O.
 */

/** Replace `code.slice(start, end)` with `text` (`start === end` inserts). Neither holds a line break. */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** A position as engines report it: 1-based line and column. */
export interface Position {
  line: number;
  column: number;
}

/** Maps a position in the script that ran back to the script the model wrote. */
export type PositionMap = (position: Position) => Position;

export const identity: PositionMap = (position) => position;

/** The code with `edits` applied; edits must not overlap. */
export function applyEdits(code: string, edits: readonly Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  let out = '';
  let at = 0;
  for (const edit of sorted) {
    if (edit.start < at || /[\r\n]/.test(edit.text) || /[\r\n]/.test(code.slice(edit.start, edit.end))) {
      throw new RangeError('edits must not overlap nor add or remove a line break');
    }
    out += code.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + code.slice(at);
}

/** 0-based line and column of every offset in `offsets`, in one pass over `code`. */
function lineColumns(code: string, offsets: readonly number[]): Array<{ line: number; column: number }> {
  const starts = [0];
  for (let i = code.indexOf('\n'); i !== -1; i = code.indexOf('\n', i + 1)) starts.push(i + 1);
  return offsets.map((offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, column: offset - starts[lo]! };
  });
}

/**
 * Per line (1-based) of the edited script, each edit there: output column where it starts, its
 * output width and its input width. Plain data, so it crosses a thread as it is (../normalize
 * runs off the host's thread: see code-execution/normalize-pool.ts).
 */
export type EditTable = Array<[line: number, edits: Array<{ outColumn: number; outWidth: number; inWidth: number }>]>;

/** The table of {@link editsMap}, as data. */
export function editsTable(code: string, edits: readonly Edit[]): EditTable {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  const places = lineColumns(code, sorted.map((e) => e.start));
  const byLine = new Map<number, Array<{ outColumn: number; outWidth: number; inWidth: number }>>();
  let shift = 0;
  let line = -1;
  sorted.forEach((edit, i) => {
    const place = places[i]!;
    if (place.line !== line) {
      line = place.line;
      shift = 0;
    }
    const list = byLine.get(line + 1) ?? [];
    list.push({ outColumn: place.column + shift, outWidth: edit.text.length, inWidth: edit.end - edit.start });
    byLine.set(line + 1, list);
    shift += edit.text.length - (edit.end - edit.start);
  });
  return [...byLine];
}

/** The position map of an edit table. */
export function tableMap(table: EditTable): PositionMap {
  if (table.length === 0) return identity;
  const byLine = new Map(table);
  return ({ line, column }) => {
    const list = byLine.get(line);
    if (list === undefined) return { line, column };
    let c = column - 1;
    let back = 0;
    for (const edit of list) {
      if (c < edit.outColumn) break;
      if (c < edit.outColumn + edit.outWidth) return { line, column: edit.outColumn - back + 1 };
      back += edit.outWidth - edit.inWidth;
    }
    c -= back;
    return { line, column: c + 1 };
  };
}

/**
 * The map from positions in `applyEdits(code, edits)` back to positions in `code`. A position
 * inside inserted text maps to where the text was inserted.
 */
export function editsMap(code: string, edits: readonly Edit[]): PositionMap {
  if (edits.length === 0) return identity;
  return tableMap(editsTable(code, edits));
}

/** Maps through `later` (the step that ran last) and then `earlier`, back to the first script. */
export function composeMaps(later: PositionMap, earlier: PositionMap): PositionMap {
  if (later === identity) return earlier;
  if (earlier === identity) return later;
  return (position) => earlier(later(position));
}
