/**
 * Where a config file stops being JSON, as a person finds it: line and column (both from 1), what
 * was expected there and the line itself with a caret. `JSON.parse` says this differently on
 * each Node version (a character position on 20, sometimes only a quote of the text), so the
 * place is found here by a small scanner of the JSON grammar (RFC 8259) that stops at the first
 * character that cannot continue a JSON text. It runs only after `JSON.parse` has failed, on a
 * file serve was asked to read, once; it allocates nothing per character and recurses once per
 * nesting level (bounded by {@link MAX_DEPTH}).
 */

/** Nesting deeper than this is reported as the mistake (no config nests past a handful of levels). */
const MAX_DEPTH = 512;

/** Where and why a text is not JSON. */
export interface JsonErrorPlace {
  /** 1-based line. */
  line: number;
  /** 1-based column, in UTF-16 code units of that line. */
  column: number;
  /** What was expected and what came: `expected "," or "}" after a property value, got '"'`. */
  reason: string;
  /** The line's text, for showing with a caret (cut to 200 characters around the column). */
  excerpt: string;
  /** The caret's offset in `excerpt`. */
  caret: number;
}

class Stop extends Error {
  constructor(
    readonly at: number,
    readonly expected: string,
  ) {
    super(expected);
  }
}

/** The first place `text` is not JSON, or undefined when it is JSON. */
export function jsonErrorPlace(text: string): JsonErrorPlace | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const literal = (word: string): void => {
    for (let k = 0; k < word.length; k++, i++) if (text[i] !== word[k]) throw new Stop(i, `"${word}"`);
  };
  const string = (): void => {
    i++; // the opening quote
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c)) throw new Stop(i, 'the closing " of a string');
      if (c === 0x22) return void i++;
      if (c < 0x20) throw new Stop(i, 'a character allowed in a string (a control character must be escaped, a line break as \\n)');
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new Stop(i + 2, 'four hex digits after \\u');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else throw new Stop(i + 1, 'an escape: one of " \\ / b f n r t u');
      } else i++;
    }
  };
  const digits = (what: string): void => {
    if (!(text[i]! >= '0' && text[i]! <= '9')) throw new Stop(i, what);
    while (text[i]! >= '0' && text[i]! <= '9') i++;
  };
  const number = (): void => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits('a digit');
    if (text[i] === '.') {
      i++;
      digits('a digit after the decimal point');
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits('a digit in the exponent');
    }
  };
  const value = (depth: number): void => {
    if (depth > MAX_DEPTH) throw new Stop(i, `at most ${MAX_DEPTH} levels of nesting`);
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') throw new Stop(i, 'a property name in double quotes');
        string();
        ws();
        if (text[i] !== ':') throw new Stop(i, '":" after a property name');
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') return void i++;
        throw new Stop(i, '"," or "}" after a property value');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') return void i++;
        throw new Stop(i, '"," or "]" after an array element');
      }
    }
    if (c === '"') return string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    throw new Stop(i, 'a value (an object, array, string, number, true, false or null)');
  };
  try {
    value(0);
    ws();
    if (i < text.length) throw new Stop(i, 'the end of the file after the value');
    return undefined;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    return place(text, error.at, error.expected);
  }
}

function place(text: string, at: number, expected: string): JsonErrorPlace {
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = text.indexOf('\n', at) === -1 ? text.length : text.indexOf('\n', at);
  const column = at - lineStart + 1;
  const got = at >= text.length ? 'the end of the file' : JSON.stringify(text[at]);
  const from = Math.max(lineStart, at - 100);
  const excerpt = text.slice(from, Math.min(lineEnd, at + 100)).replace(/\r$/, '');
  return { line, column, reason: `expected ${expected}, got ${got}`, excerpt, caret: at - from };
}
