/**
 * Pieces shared by the conformance adapters: where the frozen vectors live, host evidence,
 * fixture-input expansion, and the scratch directory of one scenario.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The frozen vectors: `$TOOLCELL_CONFORMANCE_DIR`, else the copy kept in `test/conformance/vectors/`. */
export function conformanceDir(): string {
  return process.env.TOOLCELL_CONFORMANCE_DIR ?? resolve(REPO_ROOT, 'test', 'conformance', 'vectors');
}

export function readVectors<T>(file: string): T {
  return JSON.parse(readFileSync(join(conformanceDir(), file), 'utf8')) as T;
}

/** `{"$fixture":"object-utf8-bytes","bytes":N}` → an object `{data:"xxx…"}` serializing to exactly N bytes. */
export function expandInput(input: unknown): unknown {
  if (input && typeof input === 'object' && (input as Record<string, unknown>).$fixture === 'object-utf8-bytes') {
    const bytes = (input as { bytes: number }).bytes;
    const overhead = Buffer.byteLength(JSON.stringify({ data: '' }));
    return { data: 'x'.repeat(bytes - overhead) };
  }
  return structuredClone(input);
}

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', ['-C', REPO_ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // Not a checkout (a packed copy): evidence says so instead of failing the run.
    return undefined;
  }
}

function version(name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

export function hostEvidence(): Record<string, unknown> {
  const status = git(['status', '--porcelain', '--untracked-files=no']);
  return {
    implementation: 'toolcell',
    revision: git(['rev-parse', 'HEAD']) ?? 'unknown',
    dirty: status === undefined ? 'unknown' : status.length > 0,
    runtime: `Node ${process.version}`,
    dependencies: {
      '@modelcontextprotocol/sdk': version('@modelcontextprotocol/sdk'),
      zod: version('zod'),
      eventemitter3: version('eventemitter3'),
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `probe` is truthy; throws with `label` after `timeoutMs`. */
export async function until(probe: () => unknown, label: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${label}`);
    await sleep(delay);
    delay = Math.min(delay * 2, 25);
  }
}
