/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector` 2.12.0, pinned) as a real client of
 * `toolcell serve`, in both protocol eras (2025-11-25, its default "legacy" era, and
 * `--protocol-era modern`, 2026-07-28) over stdio (the CLI spawns serve) and over Streamable
 * HTTP (a real `serve --http` process with a bearer token). Each CLI run is one process and one
 * request: tools/list, a provider tool, code_execution whose script calls a tool, a tool
 * behind an approval (directly and from a script) and, over HTTP, a provider that elicits.
 *
 * The Inspector CLI declares no elicitation capability (it builds its client with
 * `elicit: false`, has no flag or stdin path to answer one, and its CLI has no `tasks/update`),
 * so an approval can never be given through it: serve must fail closed in both eras — the gated
 * call is refused with a message saying why, and the provider's log shows it never ran; a
 * provider's elicitation is declined to the provider, never sent to the CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { REPO_ROOT, type Peer } from '../helpers/peers.ts';
import { approvalFixture, serveCommand, startHttp } from './external-client-fixture.ts';

const REFERENCE = join(REPO_ROOT, 'test', 'conformance', 'mcp', 'reference-server.ts');
const INSPECTOR = join(REPO_ROOT, 'node_modules', '.bin', 'mcp-inspector');
const TOKEN = 'inspector-tok-7';
/** One CLI run starts node (and, over stdio, serve under tsx): generous beside three busy loops. */
const RUN_TIMEOUT_MS = 90_000;

type Era = 'legacy' | 'modern';

interface Run {
  code: number | null;
  /** The CLI's `--format json` stdout: `{ result }` on success. */
  out: any;
  stdout: string;
  stderr: string;
}

/** Runs the Inspector CLI once against `target` (a serve command line, or an HTTP URL). */
async function inspect(era: Era, target: { url: string } | { command: string[] }, args: string[]): Promise<Run> {
  const targetArgs = 'url' in target
    ? ['--transport', 'http', '--server-url', target.url, '--header', `Authorization: Bearer ${TOKEN}`]
    : [];
  const argv = ['--cli', '--format', 'json', '--connect-timeout', String(RUN_TIMEOUT_MS), '--protocol-era', era, ...targetArgs, ...args, ...('command' in target ? ['--', ...target.command] : [])];
  const child = spawn(INSPECTOR, argv, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS + 30_000);
  try {
    const [code] = (await once(child, 'exit')) as [number | null];
    let out: any;
    try {
      out = JSON.parse(stdout);
    } catch {
      out = undefined; // asserted by the caller, with stdout and stderr in the message
    }
    return { code, out, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

const show = (run: Run) => `exit ${run.code}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(-2000)}`;
const calls = (provider: Peer, name: string) => provider.events().filter((e) => e.event === 'call' && (e.params as any)?.name === name);
/** Calls of `look` made for `era` (two eras may share one provider). */
const looksOf = (provider: Peer, era: Era) => calls(provider, 'look').filter((e) => (e.params as any).arguments?.era === era).length;

/** The five runs of one era over one transport, asserting exact values. */
async function exercise(era: Era, target: { url: string } | { command: string[] }, provider: Peer): Promise<void> {
  const listed = await inspect(era, target, ['--method', 'tools/list']);
  assert.equal(listed.code, 0, show(listed));
  // Over HTTP the reference server is a second provider (its tools are `ref--…`).
  const names: string[] = listed.out.result.tools.map((t: { name: string }) => t.name);
  assert.deepEqual(names.filter((n) => !n.startsWith('ref--')).sort(), ['code_execution', 'result_page', 'x--look', 'x--send'], show(listed));
  if ('url' in target) assert.ok(names.includes('ref--test_elicitation_sep1034_defaults'), show(listed));

  const direct = await inspect(era, target, ['--method', 'tools/call', '--tool-name', 'x--look', '--tool-args-json', JSON.stringify({ era, n: 1 })]);
  assert.equal(direct.code, 0, show(direct));
  assert.equal(direct.out.result.isError, false, show(direct));
  assert.deepEqual(JSON.parse(direct.out.result.content[0].text), { tool: 'look', args: { era, n: 1 } }, show(direct));
  assert.equal(looksOf(provider, era), 1);
  // The era really spoken: only a 2026-07-28 result carries the server's info in its _meta.
  assert.equal(direct.out.result._meta?.['io.modelcontextprotocol/serverInfo']?.name, era === 'modern' ? 'toolcell' : undefined, show(direct));

  const script = await inspect(era, target, ['--method', 'tools/call', '--tool-name', 'code_execution', '--tool-args-json', JSON.stringify({ code: `const r = await tools.x__look({ era: ${JSON.stringify(era)}, n: 2 }); return r.args.n * 21;` })]);
  assert.equal(script.code, 0, show(script));
  assert.equal(script.out.result.isError, undefined, show(script));
  assert.equal(script.out.result.structuredContent?.value, 42, show(script));
  assert.equal(looksOf(provider, era), 2);

  // A script that calls the gated tool: serve asks for the approval before the script starts, the
  // CLI cannot answer, so the whole run is refused and nothing in it runs (not even its ungated call).
  const gatedScript = await inspect(era, target, ['--method', 'tools/call', '--tool-name', 'code_execution', '--tool-args-json', JSON.stringify({ code: `await tools.x__look({ era: ${JSON.stringify(era)}, n: 3 }); await tools.x__send({ to: "ada" }); return "sent";` })]);
  assert.equal(gatedScript.code, 5, show(gatedScript));
  assert.equal(gatedScript.out?.result?.isError, true, show(gatedScript));
  assert.equal(gatedScript.out.result.content[0].text, 'approval declined; nothing ran: approval is required, and the MCP client did not declare the elicitation capability to ask its user', show(gatedScript));

  // A direct call of the gated tool: an error result (the CLI exits 5, "tool returned isError").
  const gated = await inspect(era, target, ['--method', 'tools/call', '--tool-name', 'x--send', '--tool-args-json', JSON.stringify({ to: 'ada' })]);
  assert.equal(gated.code, 5, show(gated));
  assert.equal(gated.out?.result?.isError, true, show(gated));
  assert.equal(gated.out.result.content[0].text, 'Tool call to x--send was not approved: approval is required, and the MCP client did not declare the elicitation capability to ask its user', show(gated));
  assert.equal(looksOf(provider, era), 2, 'nothing of the refused script ran');
  assert.equal(calls(provider, 'send').length, 0, 'the gated tool never ran');
}

test('Inspector CLI over stdio (it spawns serve), both eras side by side: list, a provider tool, code_execution, approvals fail closed', async () => {
  const legacy = approvalFixture();
  const modern = approvalFixture();
  await Promise.all([
    exercise('legacy', { command: serveCommand(legacy.configPath) }, legacy.provider),
    exercise('modern', { command: serveCommand(modern.configPath) }, modern.provider),
  ]);
});

/** Our conformance reference server (Streamable HTTP); resolves with its URL once it listens. */
async function startReference(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', REFERENCE, '0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = seen.match(/listening (\S+)/);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => reject(new Error(`reference server exited ${code} before listening:\n${seen}`)));
  });
  return { url, child };
}

/**
 * A provider's own elicitation during the CLI's call (the reference server's SEP-1034 tool asks
 * without checking the client's capability): serve never forwards it to a client that did not
 * declare elicitation — not as `elicitation/create` (2025) nor as `input_required` (2026) — and
 * declines it to the provider, which reports the refusal in its result.
 */
async function providerElicitation(era: Era, url: string): Promise<void> {
  const run = await inspect(era, { url }, ['--method', 'tools/call', '--tool-name', 'ref--test_elicitation_sep1034_defaults', '--tool-args-json', '{}']);
  assert.equal(run.code, 5, show(run));
  assert.equal(run.out?.result?.isError, true, show(run));
  assert.equal(run.out.result.resultType ?? 'complete', 'complete', show(run));
  assert.match(JSON.stringify(run.out.result.content), /did not declare the \\"elicitation\\" capability/, show(run));
}

test('Inspector CLI over HTTP (serve --http, bearer token), both eras against one serve: list, a provider tool, code_execution, approvals and a provider\'s elicitation fail closed', async () => {
  const reference = await startReference();
  const f = approvalFixture([{ id: 'ref', url: reference.url, required: true }]);
  try {
    const { url, child } = await startHttp(f, TOKEN);
    const exited = once(child, 'exit');
    try {
      await Promise.all([exercise('legacy', { url }, f.provider), exercise('modern', { url }, f.provider)]);
      await Promise.all([providerElicitation('legacy', url), providerElicitation('modern', url)]);
      child.kill('SIGTERM');
      const [code] = await exited;
      assert.equal(code, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  } finally {
    reference.child.kill('SIGTERM');
  }
});
