/**
 * `toolcell serve --http` as a real process: a fixture provider spawned from the config, a
 * bearer token from --token-file, the SDK's Streamable HTTP client; SIGTERM ends it cleanly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { makePeer, REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { connectClient } from './fixture-host.ts';
import { INITIALIZE, postHead, rawConnect } from './raw-http.ts';

/** Status of a raw initialize carrying `headers`. */
async function statusOf(url: string, headers: Record<string, string>): Promise<number | undefined> {
  const peer = await rawConnect(url);
  peer.write(postHead(url, { 'Content-Length': INITIALIZE.length, Connection: 'close', ...headers }) + INITIALIZE);
  const end = await peer.response;
  peer.socket.destroy();
  return end.status;
}

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

test('serve --http with --token-file: tools of the config served to a client holding the token; http.allowedOrigins applies', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({ servers: [provider.config], codeExecution: { languages: ['javascript'] }, http: { allowedOrigins: ['https://app.example.com'] } }));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'tok-123\n', { mode: 0o600 });
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', `--config=${configPath}`, '--http', '127.0.0.1:0', '--token-file', tokenFile], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = once(child, 'exit');
  try {
    // The bound address is in the log line that says serving started.
    const url = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stderr! });
      lines.on('line', (line) => {
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'toolcell serving MCP over Streamable HTTP' && entry.url) resolve(entry.url);
        } catch {
          // Not a log line (a stack trace, say): the exit below reports the failure.
        }
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code} before serving`)));
    });
    await assert.rejects(connectClient(url), /bearer token/);
    // The config's allowedOrigins reach the server: its origin is served, another is refused.
    assert.equal(await statusOf(url, { Authorization: 'Bearer tok-123', Origin: 'https://app.example.com' }), 200);
    assert.equal(await statusOf(url, { Authorization: 'Bearer tok-123', Origin: 'https://other.example.com' }), 403);
    const { client } = await connectClient(url, 'tok-123');
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['code_execution', 'result_page', 'x--run']);
      const direct = await client.callTool({ name: 'x--run', arguments: { a: 1 } });
      assert.equal(direct.isError, false, JSON.stringify(direct));
      const script = await client.callTool({ name: 'code_execution', arguments: { code: 'return (await tools.x__run({ b: 2 })).args.b' } });
      assert.equal((script.structuredContent as { value?: unknown })?.value, 2, JSON.stringify(script));
    } finally {
      await client.close();
    }
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
