/**
 * Reading a JSON-lines log that another process is appending to: only lines that end in a
 * newline are complete. A long line (an observer's 16 KiB input) can be read half written, and
 * parsing it failed the MCPL conformance run (rfc007-25, "Unterminated string in JSON").
 */
import { existsSync, readFileSync } from 'node:fs';

/** The complete lines of `path` parsed as JSON; none when the file does not exist yet. */
export function readJsonLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}
