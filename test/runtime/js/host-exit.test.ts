/**
 * A host process that uses the sandbox and never calls close() exits on its own once its runs
 * are done: nothing the QuickJS threads leave behind (the thread, its frame channel, a pending
 * watch for its next frame, a kept session) keeps the host's event loop alive.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

// A host kept alive never exits: the bound below turns that hang into a failure (it is far
// above the ~2 s this takes at load 8).
test('a host that never closes the default runtime exits once its runs are done', { timeout: 60_000 }, async (t) => {
  const host = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./fixtures/idle-host.ts', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
    // Killed when the test times out, or the hang would hold the runner too.
    signal: t.signal,
  });
  host.on('error', () => {});
  let out = '';
  host.stdout.on('data', (chunk: Buffer) => (out += chunk));
  const [code] = (await once(host, 'exit')) as [number | null];
  assert.equal(code, 0);
  assert.equal(out.trim(), '[200,7]');
});
