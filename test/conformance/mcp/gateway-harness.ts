/**
 * What the gateway conformance runners (run-gateway.ts, run-gateway-2026.ts) share: starting a
 * backend and `toolcell serve --http` in front of it as child processes, running the official
 * suite's server scenarios against a URL and reading its score, and stopping every child at
 * the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE22 } from './suite-location.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const children: ChildProcess[] = [];

/** Spawns a Node child and resolves with the first match of `pattern` in its `stream` output. */
export function startAndWait(args: string[], stream: 'stdout' | 'stderr', pattern: RegExp, what: string): Promise<RegExpMatchArray> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = '';
    child[stream]!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = seen.match(pattern);
      if (match) resolve(match);
    });
    child.on('exit', (code) => reject(new Error(`${what} exited (${code}) before it was ready:\n${seen.slice(-4000)}`)));
  });
}

/** Starts one of the reference servers (a file beside this one); its URL. */
export async function startBackend(file: string): Promise<string> {
  const match = await startAndWait(['--import', 'tsx', join(ROOT, 'test', 'conformance', 'mcp', file), '0'], 'stdout', /listening (\S+)/, file);
  return match[1]!;
}

/**
 * Starts `toolcell serve --http` with one provider, `backendUrl`, under its own tool names
 * (`protocolEra: "auto"` for a 2026 backend); serve's URL.
 */
export async function startServe(backendUrl: string, protocolEra?: 'auto'): Promise<string> {
  const config = join(mkdtempSync(join(tmpdir(), 'toolcell-gateway-')), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'reference', url: backendUrl, prefixTools: false, required: true, ...(protocolEra ? { protocolEra } : {}) }], codeExecution: false }));
  const match = await startAndWait(
    ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'serve', '--config', config, '--http', '127.0.0.1:0'],
    'stderr',
    /"url":"(http:[^"]+)"[^\n]*serving MCP over Streamable HTTP/,
    'toolcell serve',
  );
  return match[1]!;
}

/** One run of the suite: its totals, the failed checks' lines, and each scenario's score. */
export interface SuiteRun {
  passed: number;
  failed: number;
  failures: string[];
  scenarios: Map<string, { passed: number; failed: number }>;
}

/** Runs the suite's server scenarios (`--suite all`, and `--spec-version` when given) of `suite` against `url`. */
export function runSuite(suite: string, url: string, label: string, specVersion?: string): Promise<SuiteRun> {
  return new Promise((resolve, reject) => {
    const args = [suite, 'server', '--url', url, '--suite', 'all', ...(specVersion ? ['--spec-version', specVersion] : [])];
    const child = spawn(NODE22, args, { cwd: mkdtempSync(join(tmpdir(), 'conformance-')), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.on('exit', () => {
      const total = /Total: (\d+) passed, (\d+) failed/.exec(out);
      if (!total) return reject(new Error(`the suite (${label}) printed no total:\n${out.slice(-4000)}`));
      const scenarios: SuiteRun['scenarios'] = new Map();
      for (const m of out.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed$/gm)) scenarios.set(m[1]!, { passed: Number(m[2]), failed: Number(m[3]) });
      const failures = [...out.matchAll(/^✗ (.+)$/gm)].map((m) => m[1]!);
      resolve({ passed: Number(total[1]), failed: Number(total[2]), failures, scenarios });
    });
  });
}

/** Runs `main`, sets the exit code from it, and stops every child started here. */
export function runMain(main: () => Promise<number>): void {
  main()
    .then((code) => (process.exitCode = code))
    .catch((error: Error) => {
      console.error(error.message);
      process.exitCode = 1;
    })
    .finally(() => {
      for (const child of children) child.kill('SIGTERM');
    });
}
