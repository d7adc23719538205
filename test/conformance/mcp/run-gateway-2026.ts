/**
 * Gateway conformance for MCP 2026-07-28: the official suite's 0.2.0 pre-release (pinned in
 * suite/package.json as `conformance-2026`) runs its server scenarios
 * - against our reference server alone at `--spec-version 2025-11-25` (the reference server is
 *   a 2025 server: it has no 2026 face of its own), and
 * - against `toolcell serve --http` in front of it at `--spec-version 2026-07-28`,
 * so what is measured is serve translating a 2025 backend for a 2026 client. Every scenario the
 * two runs share must score within {@link MAX_GAP} checks in total of the backend alone; every
 * scenario only the 2026 run has must pass, except those listed in {@link NEEDS_2026_BACKEND}
 * (they call diagnostic tools a 2025 backend cannot offer). Prints both tables.
 *
 * Usage: npm run conformance:gateway-2026
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE22, SUITE_2026, requireSuite } from './suite-location.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
requireSuite();
const MAX_GAP = 2;

/**
 * 2026-only scenarios whose checks call tools that only a 2026 backend can offer: exact
 * `inputRequests` keys and `requestState` of the backend's own choosing (input-required-*),
 * tools annotated with `x-mcp-header` (http-custom-header-server-validation), and the
 * `test_missing_capability` probe (two checks of server-stateless). serve passes a 2025
 * backend's elicitation through as `input_required`, with keys of its own.
 */
const NEEDS_2026_BACKEND = new Set([
  'server-stateless',
  'http-custom-header-server-validation',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
]);
/** Most checks of server-stateless that may fail for want of `test_missing_capability`. */
const STATELESS_MAX_FAILED = 2;

const children: ChildProcess[] = [];

function startAndWait(args: string[], stream: 'stdout' | 'stderr', pattern: RegExp, what: string): Promise<RegExpMatchArray> {
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

type Scores = Map<string, { passed: number; failed: number }>;

/** Runs the suite against `url` at `specVersion`; the score of each scenario from the lines it prints. */
function runSuite(url: string, specVersion: string, label: string): Promise<Scores> {
  return new Promise((resolve, reject) => {
    const args = [SUITE_2026, 'server', '--url', url, '--suite', 'all', '--spec-version', specVersion];
    const suite = spawn(NODE22, args, { cwd: mkdtempSync(join(tmpdir(), 'conformance-2026-')), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    suite.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    suite.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    suite.on('exit', () => {
      if (!/Total: \d+ passed, \d+ failed/.test(out)) return reject(new Error(`the suite (${label}) printed no total:\n${out.slice(-4000)}`));
      const scores: Scores = new Map();
      for (const m of out.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed$/gm)) scores.set(m[1]!, { passed: Number(m[2]), failed: Number(m[3]) });
      resolve(scores);
    });
  });
}

async function main(): Promise<number> {
  const reference = await startAndWait(['--import', 'tsx', join(ROOT, 'test', 'conformance', 'mcp', 'reference-server.ts'), '0'], 'stdout', /listening (\S+)/, 'the reference server');
  const referenceUrl = reference[1]!;
  const config = join(mkdtempSync(join(tmpdir(), 'toolcell-gateway-2026-')), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'reference', url: referenceUrl, prefixTools: false, required: true }], codeExecution: false }));
  const serve = await startAndWait(
    ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'serve', '--config', config, '--http', '127.0.0.1:0'],
    'stderr',
    /"url":"(http:[^"]+)"[^\n]*serving MCP over Streamable HTTP/,
    'toolcell serve',
  );
  const alone = await runSuite(referenceUrl, '2025-11-25', 'reference server alone, 2025-11-25');
  const through = await runSuite(serve[1]!, '2026-07-28', 'through toolcell serve, 2026-07-28');

  let alonePassed = 0;
  let throughPassed = 0;
  const problems: string[] = [];
  console.log('scenario                                        backend alone (2025)   through serve (2026)');
  for (const [name, score] of through) {
    const before = alone.get(name);
    if (before) {
      alonePassed += before.passed;
      throughPassed += score.passed;
      console.log(`${name.padEnd(48)}${`${before.passed}/${before.passed + before.failed}`.padEnd(23)}${score.passed}/${score.passed + score.failed}`);
      continue;
    }
    console.log(`${name.padEnd(48)}${'(2026 only)'.padEnd(23)}${score.passed}/${score.passed + score.failed}`);
    if (score.failed === 0) continue;
    if (!NEEDS_2026_BACKEND.has(name)) problems.push(`${name}: ${score.failed} check(s) failed`);
    else if (name === 'server-stateless' && score.failed > STATELESS_MAX_FAILED) problems.push(`${name}: ${score.failed} checks failed (at most ${STATELESS_MAX_FAILED} for want of test_missing_capability)`);
  }
  const gap = alonePassed - throughPassed;
  console.log(`shared scenarios: backend alone ${alonePassed} passed, through serve ${throughPassed} passed; gap ${gap} (at most ${MAX_GAP})`);
  if (gap > MAX_GAP) problems.push(`gap of ${gap} checks on the shared scenarios`);
  for (const p of problems) console.error(`FAIL ${p}`);
  return problems.length > 0 ? 1 : 0;
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
