/**
 * The RFC-007 §6.2 pattern grammar, shared by `tools/observe` filters and operator narrowing.
 *
 * `*` matches any run of zero or more characters; every other character matches itself (no
 * escapes, no other metacharacters); a pattern must match the whole string; case-sensitive.
 *
 * Patterns are server-supplied, so matching must not backtrack. A pattern is split on `*`
 * into literal pieces once, at compile time. The first piece must be a prefix, the last a
 * suffix, and the middle pieces are found left to right with `indexOf`: taking the leftmost
 * occurrence of each piece is always safe for a `*`-only grammar, so the cost is bounded by
 * one scan per piece (O(text × pattern) worst case, never exponential).
 */

/** A pattern compiled once for repeated matching. */
export interface CompiledPattern {
  /** The pattern as written. */
  readonly source: string;
  /** Whether `text` matches the whole pattern. */
  matches(text: string): boolean;
}

/** Compiles a §6.2 pattern. Any string is a valid pattern (the empty pattern matches only `""`). */
export function compilePattern(source: string): CompiledPattern {
  const star = source.indexOf('*');
  if (star === -1) {
    return Object.freeze({ source, matches: (text: string) => text === source });
  }
  const pieces = source.split('*');
  const head = pieces[0]!;
  const tail = pieces[pieces.length - 1]!;
  // Empty pieces come from adjacent stars (`a**b`) and match trivially; drop them once here.
  const middle = pieces.slice(1, -1).filter((p) => p.length > 0);
  const fixed = head.length + tail.length;
  if (middle.length === 0 && head.length === 0 && tail.length === 0) {
    return Object.freeze({ source, matches: () => true });
  }
  const matches = (text: string): boolean => {
    if (text.length < fixed) return false;
    if (!text.startsWith(head) || !text.endsWith(tail)) return false;
    const end = text.length - tail.length;
    let at = head.length;
    for (const piece of middle) {
      const found = text.indexOf(piece, at);
      if (found === -1 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
  return Object.freeze({ source, matches });
}

/** Whether any of `patterns` matches `text`. An empty list matches nothing. */
export function matchesAny(patterns: readonly CompiledPattern[], text: string): boolean {
  for (const p of patterns) if (p.matches(text)) return true;
  return false;
}
