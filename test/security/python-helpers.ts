/**
 * Shared by the Python attack tests: runners in each isolation mode (bubblewrap is required
 * here, so the `bwrap` tests really run), and a view of the host's processes.
 */
import { after } from 'node:test';
import fs from 'node:fs';
import { PythonRunner, type PythonRunnerOptions } from '../../src/runtime/python/index.ts';

export const MODES = ['none', 'bwrap'] as const;

const made: PythonRunner[] = [];
after(() => Promise.all(made.map((r) => r.close())));

export function runner(options: PythonRunnerOptions): PythonRunner {
  const r = new PythonRunner(options);
  made.push(r);
  return r;
}

export const opts = (timeoutMs = 10_000) => ({ tools: [], timeoutMs });

/** Host pids whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'latin1');
      if (cmdline.includes(marker)) found.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** Polls a condition the code under test exposes no event for (a process going away). */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
