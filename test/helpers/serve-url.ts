/**
 * The address a `toolcell serve --http` child process serves at: read from the log line (on its
 * stderr, JSON) that says serving started. Shared by the tests that start serve as a process.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** The log message serve writes once it listens (src/serve/http.ts), with `url` beside it. */
export const SERVING_MESSAGE = 'toolcell serving MCP over Streamable HTTP';

/**
 * Resolves with the URL serve announces; rejects if it exits first, or after `timeoutMs` (the
 * error carries what it wrote). `onLine` sees every line of its stderr, for tests that keep the log.
 */
export function servingUrl(child: ChildProcess, timeoutMs = 120_000, onLine?: (line: string) => void): Promise<string> {
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderr += `${line}\n`;
      onLine?.(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === SERVING_MESSAGE && entry.url) {
          clearTimeout(timer);
          resolve(entry.url);
        }
      } catch {
        // Not a log line (a stack trace, say): kept for the failure message.
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before serving:\n${stderr}`));
    });
  });
}
