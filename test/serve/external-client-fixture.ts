/**
 * What the tests of third-party MCP clients against `toolcell serve` share (the MCP Inspector
 * CLI: inspector-cli.test.ts; the Python `mcp` client: python-mcp-client.pypi.ts): a provider
 * with one tool behind an approval and one without, serve's config for it, the command that
 * starts serve over stdio, and a `serve --http` process with a bearer token.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePeer, REPO_ROOT, scratchDir, type Peer } from '../helpers/peers.ts';
import { servingUrl } from '../helpers/serve-url.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

export interface Fixture {
  provider: Peer;
  configPath: string;
  dir: string;
}

/** A provider `x` with `send` (class comms, behind an approval) and `look` (no approval), and `extraServers` beside it. */
export function approvalFixture(extraServers: unknown[] = []): Fixture {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'send', classes: ['comms'] }, { name: 'look', classes: ['read'] }] });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({ servers: [provider.config, ...extraServers], codeExecution: { languages: ['javascript'] }, approvals: { classes: ['comms'] } }));
  return { provider, configPath, dir };
}

/** The command line a client spawns to speak to serve over stdio. */
export const serveCommand = (configPath: string): string[] => [process.execPath, '--import', 'tsx', CLI, 'serve', '--config', configPath];

/** A `serve --http` process on an ephemeral port that checks `token`; resolves with its URL once it serves. */
export async function startHttp(f: Fixture, token: string): Promise<{ url: string; child: ChildProcess }> {
  const tokenFile = join(f.dir, 'token');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', `--config=${f.configPath}`, '--http', '127.0.0.1:0', '--token-file', tokenFile], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return { url: await servingUrl(child), child };
}
