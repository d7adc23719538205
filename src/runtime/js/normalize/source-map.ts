/**
 * Reads a source map's `mappings` (version 3, one source) to map a position in generated code
 * back to the source it came from. Used only for TypeScript that needed a real transform
 * (`enum`, `namespace`): such output is reprinted, so its positions differ from the script's.
 * Pure: no I/O.
 */

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** One segment: generated column, source line, source column (all 0-based). */
export type Segment = [number, number, number];

/** Segments per generated line, each line's sorted by generated column. */
export function decodeMappings(mappings: string): Segment[][] {
  const lines: Segment[][] = [];
  let sourceLine = 0;
  let sourceColumn = 0;
  for (const text of mappings.split(';')) {
    const line: Segment[] = [];
    let column = 0;
    for (const part of text.split(',')) {
      if (part === '') continue;
      const fields = decodeVlq(part);
      column += fields[0]!;
      // A segment without a source (1 field) maps nothing.
      if (fields.length < 4) continue;
      sourceLine += fields[2]!;
      sourceColumn += fields[3]!;
      line.push([column, sourceLine, sourceColumn]);
    }
    line.sort((a, b) => a[0] - b[0]);
    lines.push(line);
  }
  return lines;
}

function decodeVlq(text: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const c of text) {
    const digit = DIGIT.get(c);
    if (digit === undefined) throw new SyntaxError(`bad source map character ${JSON.stringify(c)}`);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return out;
}

/**
 * The source position (0-based) of a generated one: the closest segment at or before it on its
 * line, moved by the distance from it; the line's first segment when it is before them all. A
 * line without segments (the inside of a reprinted `enum`) takes the last segment of the
 * closest line above that has one, at its own column.
 */
export function originalPosition(lines: readonly Segment[][], line: number, column: number): { line: number; column: number } | undefined {
  const segments = lines[line];
  if (segments === undefined) return undefined;
  if (segments.length === 0) {
    for (let above = line - 1; above >= 0; above--) {
      const last = lines[above]!.at(-1);
      if (last !== undefined) return { line: last[1], column: last[2] };
    }
    return undefined;
  }
  let best = segments[0]!;
  for (const segment of segments) {
    if (segment[0] > column) break;
    best = segment;
  }
  return { line: best[1], column: best[2] + Math.max(0, column - best[0]) };
}
