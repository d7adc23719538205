/**
 * serve's logs hold no secret (issue 42.2): a provider URL with `user:password@` and an
 * `?api_key=` query used to reach stderr verbatim in every connect failure and retry line. The
 * real CLI runs on stdio with two remote providers that cannot connect (their URLs carry
 * credentials), and exits when its stdin closes; every line it wrote is checked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const S = 'Zq8vN3xR7tLm2KpW9yB4';

test("serve's stderr carries no URL credentials or secret query parameters", async () => {
  const dir = scratchDir();
  const config = join(dir, 'serve.json');
  writeFileSync(config, JSON.stringify({
    servers: [
      { id: 'remote', url: `http://app:p%2F${S}@127.0.0.1:9/mcp?api_key=${S}`, reconnect: { maxAttempts: 1, delayMs: 10 } },
      { id: 'remote2', url: `http://user:${S}@127.0.0.1:9/mcp?token=${S}&x=1` },
    ],
  }));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--config', config], { cwd: REPO_ROOT, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
    // The retry's verdict is the last line about the providers: then stdin may close.
    if (stderr.includes('did not connect')) child.stdin.end();
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  assert.equal(code, 0, stderr);
  const lines = stderr.trim().split('\n');
  assert.ok(lines.length >= 4, stderr);
  for (const line of lines) JSON.parse(line); // still one JSON object per line
  assert.ok(!stderr.includes(S), stderr);
  assert.match(stderr, /127\.0\.0\.1:9\/mcp\?api_key=\[redacted\]/);
  assert.match(stderr, /http:\/\/user:\[redacted\]@127\.0\.0\.1:9/);
});
