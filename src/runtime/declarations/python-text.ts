/**
 * Python source fragments: keywords, string literals, docstrings and comments, escaped so
 * that any description text still yields a file `ast.parse` accepts.
 */

import { isPyIdentifier } from '../names.ts';
import { docLines, type Doc } from './doc.ts';

export const PY_KEYWORDS = new Set(
  ('False None True and as assert async await break class continue def del elif else except finally for from global ' +
    'if import in is lambda nonlocal not or pass raise return try while with yield').split(' '),
);

/** Whether `name` can be written as an identifier (`tools.name`, `def name`). */
export function isPyName(name: string): boolean {
  return isPyIdentifier(name) && !PY_KEYWORDS.has(name);
}

/**
 * Whether `name` can be a field in class-syntax TypedDict. Names starting with `__` would be
 * mangled inside a class body, so those go through the functional syntax too.
 */
export function isClassField(name: string): boolean {
  return isPyName(name) && !name.startsWith('__');
}

/** Control characters Python source cannot hold raw (NUL) or that would end a line. */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x85\u2028\u2029]/g;

function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A Python string literal for `text`. JSON escapes are a subset of Python's. */
export function pyString(text: string): string {
  return JSON.stringify(text).replace(/[\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `text` as a single-quoted string whose contents Python evaluates back to `text`. */
export function pyQuoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * Lines of a docstring (at column 0; the caller indents), or nothing for no text. Text with
 * backslashes goes into a raw docstring so it reads as written (`C:\dir`, `\d+`), not doubled.
 */
export function docstring(lines: readonly string[]): string[] {
  const raw = lines.some((line) => line.includes('\\'));
  const body = lines.map((line) => escapeControls(line.replace(/"""/g, '""\\"')));
  while (body.length > 0 && body[body.length - 1]!.trim() === '') body.pop();
  if (body.length === 0) return [];
  const open = raw ? 'r"""' : '"""';
  // A closing quote or backslash right before `"""` would merge with it: close on a new line.
  if (body.length === 1 && !/["\\]$/.test(body[0]!)) return [`${open}${body[0]}"""`];
  return [`${open}${body[0]}`, ...body.slice(1), '"""'];
}

/** Lines as `# ` comments. */
export function commentLines(lines: readonly string[]): string[] {
  return lines.map((line) => (line === '' ? '#' : `# ${escapeControls(line)}`));
}

/** `# ` comment lines for a doc: description, then constraints on one line. */
export function comments(doc: Doc): string[] {
  const lines = doc.description !== undefined ? docLines(doc.description) : [];
  if (doc.tags.length > 0) {
    lines.push(doc.tags.map(([tag, value]) => (value === '' ? tag : `${tag}: ${value.replace(/\s+/g, ' ')}`)).join(', '));
  }
  return commentLines(lines);
}
