/**
 * The Python `mcp` 2.3 client (its own `Client`, over its stdio and Streamable HTTP transports)
 * as a real client of `toolcell serve`, in both protocol eras: `mode="legacy"` (the initialize
 * handshake at 2025-11-25) and `mode="2026-07-28"` (pinned, no handshake). One Python process
 * per run (test/serve/fixtures/py-mcp-client.py) lists tools, calls a provider tool, runs
 * code_execution whose script calls that tool, and calls a tool behind an approval from a
 * script and directly, printing one JSON line of what it saw.
 *
 * This client can answer an approval: it declares elicitation when given a callback, answers
 * `elicitation/create` (2025) with it, and answers a 2026 `input_required` result through the
 * same callback and re-sends the call. So both answers are tested: accept (the gated tool runs
 * exactly once per approved call) and decline (it never runs), counted in the provider's log.
 * Without a callback it declares no elicitation, and serve fails closed (over HTTP, both eras).
 *
 * The Python comes from env `TOOLCELL_PYTHON_MCP` (a python with mcp 2.3 installed) or, unset,
 * from a venv this file makes once under node_modules/.cache/toolcell-pymcp/ (pip install
 * mcp==2.3.0, bounded); a failed install fails the test with the reason.
 *
 * Not part of `npm test` (hence not `*.test.ts`): it needs PyPI, which CI machines here do not
 * reach (npm and Debian only), and a failed install must fail, not skip. Run it with
 * `npm run test:python-mcp` where PyPI is reachable.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, type Peer } from '../helpers/peers.ts';
import { approvalFixture, serveCommand, startHttp } from './external-client-fixture.ts';

const CLIENT = join(REPO_ROOT, 'test', 'serve', 'fixtures', 'py-mcp-client.py');
const VENV = join(REPO_ROOT, 'node_modules', '.cache', 'toolcell-pymcp');
const MCP_PIN = 'mcp==2.3.0';
const TOKEN = 'python-mcp-tok-3';
/** One client run starts python and (over stdio) serve under tsx: generous beside three busy loops. */
const RUN_TIMEOUT_MS = 180_000;
/** Making the venv and installing mcp 2.3.0 with its dependencies from the registry. */
const INSTALL_TIMEOUT_MS = 300_000;

type Era = 'legacy' | 'modern';
/** What the client's elicitation callback answers; `none`: no callback, no elicitation capability. */
type Answer = 'accept' | 'decline' | 'none';

/** Runs a command to its end (killed past `timeoutMs`); rejects with its output unless it exits 0. */
async function run(command: string, args: string[], timeoutMs: number): Promise<void> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    if (code !== 0) throw new Error(`${command} ${args.join(' ')} ended with ${code ?? signal}${signal ? ` (past ${timeoutMs} ms?)` : ''}:\n${output.slice(-3000)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** The python to use: `TOOLCELL_PYTHON_MCP`, or the cached venv, made on first use. */
async function python(): Promise<string> {
  const given = process.env.TOOLCELL_PYTHON_MCP;
  if (given) return given;
  const bin = join(VENV, 'bin', 'python');
  const done = join(VENV, '.installed');
  if (existsSync(done)) return bin;
  rmSync(VENV, { recursive: true, force: true });
  mkdirSync(join(REPO_ROOT, 'node_modules', '.cache'), { recursive: true });
  const started = Date.now();
  const deadline = started + INSTALL_TIMEOUT_MS;
  try {
    await run('python3', ['-m', 'venv', VENV], INSTALL_TIMEOUT_MS);
    await run(bin, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', MCP_PIN], Math.max(1, deadline - Date.now()));
  } catch (error) {
    rmSync(VENV, { recursive: true, force: true });
    throw new Error(`cannot install the Python MCP client (${MCP_PIN}) into ${VENV} (set TOOLCELL_PYTHON_MCP to a python that has it): ${(error as Error).message}`);
  }
  writeFileSync(done, `${MCP_PIN} installed in ${Date.now() - started} ms\n`);
  console.log(`# installed ${MCP_PIN} into ${VENV} in ${Date.now() - started} ms`);
  return bin;
}

let PYTHON = '';
before(async () => {
  PYTHON = await python();
}, { timeout: INSTALL_TIMEOUT_MS + 60_000 });

interface Run {
  code: number | null;
  out: any;
  stdout: string;
  stderr: string;
}

/** Runs the Python client once: `target` is a serve command line (stdio) or an HTTP URL. */
async function client(era: Era, answer: Answer, target: { url: string } | { command: string[] }): Promise<Run> {
  const args = 'url' in target ? ['http', era, target.url, answer] : ['stdio', era, JSON.stringify(target.command), answer];
  const child = spawn(PYTHON, [CLIENT, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TOOLCELL_PY_TOKEN: TOKEN } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  try {
    const [code] = (await once(child, 'exit')) as [number | null];
    let out: any;
    try {
      out = JSON.parse(stdout);
    } catch {
      out = undefined; // asserted below, with stdout and stderr in the message
    }
    return { code, out, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

const show = (r: Run) => `exit ${r.code}\nstdout: ${r.stdout.slice(0, 3000)}\nstderr: ${r.stderr.slice(-3000)}`;
/** The provider's calls of `name` made by the run for (`era`, `answer`): runs may share one provider. */
const callsOf = (provider: Peer, name: string, era: Era, answer: Answer) =>
  provider.events().filter((e) => e.event === 'call' && (e.params as any)?.name === name && (e.params as any).arguments?.era === era && (e.params as any).arguments?.answer === answer);

/** One Python client run of one era and answer, asserting exact values and the provider's log. */
async function exercise(era: Era, answer: Answer, target: { url: string } | { command: string[] }, provider: Peer): Promise<void> {
  const r = await client(era, answer, target);
  assert.equal(r.code, 0, show(r));
  const seen = r.out;
  assert.equal(seen.protocolVersion, era === 'modern' ? '2026-07-28' : '2025-11-25', show(r));
  assert.deepEqual(seen.tools, ['code_execution', 'result_page', 'x--look', 'x--send'], show(r));

  assert.equal(seen.look.isError, false, show(r));
  assert.deepEqual(JSON.parse(seen.look.content[0].text), { tool: 'look', args: { era, answer, n: 1 } }, show(r));
  // The era really spoken: only a 2026-07-28 result carries the server's info in its _meta.
  assert.equal(seen.look._meta?.['io.modelcontextprotocol/serverInfo']?.name, era === 'modern' ? 'toolcell' : undefined, show(r));

  assert.equal(seen.script.isError ?? false, false, show(r));
  assert.equal(seen.script.structuredContent?.value, 42, show(r));
  assert.equal(callsOf(provider, 'look', era, answer).length, 2);

  const sends = callsOf(provider, 'send', era, answer).map((e) => (e.params as any).arguments.via);
  if (answer === 'none') {
    assert.deepEqual(seen.asked, [], show(r));
    assert.equal(seen.gatedScript.isError, true, show(r));
    assert.equal(seen.gatedScript.content[0].text, 'approval declined; nothing ran: approval is required, and the MCP client did not declare the elicitation capability to ask its user', show(r));
    assert.equal(seen.gated.isError, true, show(r));
    assert.equal(seen.gated.content[0].text, 'Tool call to x--send was not approved: approval is required, and the MCP client did not declare the elicitation capability to ask its user', show(r));
    assert.deepEqual(sends, [], 'fail closed: the gated tool never ran');
    return;
  }
  // Two approvals asked of the callback: the script's (before it starts) and the direct call's.
  assert.equal(seen.asked.length, 2, show(r));
  assert.match(seen.asked[0].message, /x--send \(line 1\)/, show(r));
  assert.match(seen.asked[1].message, /^Allow x--send, called by model call /, show(r));
  // What the person is shown is what runs: the script's exact text, the call's exact arguments.
  assert.ok(seen.asked[0].message.includes(`await tools.x__send({ era: "${era}", answer: "${answer}", via: 'script' }); return 'sent';`), show(r));
  assert.ok(seen.asked[1].message.includes(JSON.stringify({ era, answer, via: 'direct' })), show(r));
  // How each era asked: 2025 as a server->client `elicitation/create` (a JSON-RPC id), 2026 as an
  // `input_required` result whose request the client answered by its key and re-sent the call.
  for (const ask of seen.asked) assert.equal(era === 'modern' ? ask.requestId : typeof ask.requestId, era === 'modern' ? 'input-1' : 'number', show(r));
  if (answer === 'accept') {
    assert.equal(seen.gatedScript.isError ?? false, false, show(r));
    assert.equal(seen.gatedScript.structuredContent?.value, 'sent', show(r));
    assert.equal(seen.gated.isError, false, show(r));
    assert.deepEqual(JSON.parse(seen.gated.content[0].text), { tool: 'send', args: { era, answer, via: 'direct' } }, show(r));
    assert.deepEqual(sends, ['script', 'direct'], 'each approved call ran exactly once');
  } else {
    assert.equal(seen.gatedScript.isError, true, show(r));
    assert.match(seen.gatedScript.content[0].text, /^approval declined; nothing ran: declined by the client's user/, show(r));
    assert.equal(seen.gated.isError, true, show(r));
    assert.match(seen.gated.content[0].text, /^Tool call to x--send was not approved: declined by the client's user/, show(r));
    assert.deepEqual(sends, [], 'a declined call never ran');
  }
}

const CASES: Array<[Era, Answer]> = [['legacy', 'accept'], ['legacy', 'decline'], ['modern', 'accept'], ['modern', 'decline']];

test('Python mcp 2.3 client over stdio (it spawns serve), both eras, accept and decline: list, a provider tool, code_execution, approvals', { timeout: 2 * RUN_TIMEOUT_MS }, async () => {
  await Promise.all(CASES.map(([era, answer]) => {
    const f = approvalFixture();
    return exercise(era, answer, { command: serveCommand(f.configPath) }, f.provider);
  }));
});

test('Python mcp 2.3 client over HTTP (serve --http, bearer token), both eras against one serve, accept, decline and no elicitation (fail closed)', { timeout: 2 * RUN_TIMEOUT_MS }, async () => {
  const f = approvalFixture();
  const { url, child } = await startHttp(f, TOKEN);
  const exited = once(child, 'exit');
  try {
    const cases: Array<[Era, Answer]> = [...CASES, ['legacy', 'none'], ['modern', 'none']];
    await Promise.all(cases.map(([era, answer]) => exercise(era, answer, { url }, f.provider)));
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
