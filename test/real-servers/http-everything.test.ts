/**
 * server-everything in its Streamable HTTP mode (`dist/index.js streamableHttp`, port from
 * PORT), reached on loopback: list, call, progress, and the server going away mid-call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText } from '../../src/host/results.ts';
import type { ProgressUpdate } from '../../src/host/types.ts';
import { binPath } from './servers.ts';

/** A port free on loopback right now (the server binds it a moment later). */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

async function startEverythingHttp() {
  const port = await freePort();
  const child = spawn(process.execPath, [binPath('everything'), 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  const exited = once(child, 'exit');
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/listening on port/.test(stderr)) resolve();
    });
    void exited.then(() => reject(new Error(`server-everything exited: ${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

test('server-everything over Streamable HTTP: tools, a call, progress, and the server going away mid-call', async () => {
  const server = await startEverythingHttp();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  try {
    const connection = await host.connectServer({ id: 'ev', url: server.url, headers: { 'x-toolcell-test': '1' } });
    assert.equal(connection.speaksMcpl, false);
    const names = host.listTools().map((t) => t.name);
    assert.ok(names.includes('ev--echo') && names.includes('ev--trigger-long-running-operation'));
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const echo = await host.dispatch({ inferenceId, name: 'ev--echo', input: { message: 'over http' } });
    assert.equal(resultText(echo.result), 'Echo: over http');

    const seen: ProgressUpdate[] = [];
    const long = await host.dispatch({ inferenceId, name: 'ev--trigger-long-running-operation', input: { duration: 0.3, steps: 3 }, onProgress: (p) => seen.push(p) });
    assert.equal(long.status, 'completed');
    assert.deepEqual(seen.map((p) => p.progress), [1, 2, 3]);

    let stepped!: () => void;
    const firstStep = new Promise<void>((resolve) => (stepped = resolve));
    const doomed = host.dispatch({ inferenceId, name: 'ev--trigger-long-running-operation', input: { duration: 60, steps: 600 }, onProgress: () => stepped() });
    await firstStep;
    await server.kill();
    const outcome = await doomed;
    assert.equal(outcome.status, 'failed');
    assert.ok(!host.listTools().some((t) => t.serverId === 'ev'), 'a lost server lists no tools');
  } finally {
    await host.close();
    await server.kill();
  }
});
