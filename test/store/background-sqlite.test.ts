/**
 * Background scripts with the SQLite store across a restart in place (docs/durable.md): a real
 * `toolcell serve` (stdio, whose conversation is the config's, so the same after a restart) runs
 * two background scripts for a client. The first ends; the second is still in a tool call when
 * serve is SIGKILLed. Serve started again on the same file answers the first one's `status`
 * with its outcome and the second's as lost — its tool call ran once and was not run again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makePeer, REPO_ROOT, scratchDir } from '../helpers/peers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

type Envelope = { ok: boolean; status?: string; scriptId?: string; value?: unknown };

async function connect(configPath: string): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', configPath], cwd: REPO_ROOT, stderr: 'ignore' });
  const client = new Client({ name: 'background-store-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const run = async (client: Client, args: Record<string, unknown>) => client.callTool({ name: 'code_execution', arguments: args }, undefined, { timeout: 120_000 });
const text = (result: Awaited<ReturnType<typeof run>>) => (result.content as { text: string }[])[0]!.text;

test('sqlite store: after serve is SIGKILLed and started again, a background script\'s outcome is read from the store, and one cut off is reported lost, not re-run', async () => {
  const dir = scratchDir();
  const peer = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['read'] }] });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({ servers: [peer.config], store: 'sqlite:./runs.db' }));
  const latch = join(dir, 'latch');
  let first = await connect(configPath);
  let second: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    const done = (await run(first.client, { code: 'await tools.x__run({ n: 1 }); return 6 * 7;', background: true, wait_ms: 0 })).structuredContent as Envelope;
    assert.equal(done.status, 'running');
    const finished = (await run(first.client, { action: 'wait', scriptId: done.scriptId, wait_ms: 60_000 })).structuredContent as Envelope;
    assert.deepEqual([finished.status, finished.value], ['completed', 42]);
    const cut = (await run(first.client, { code: `await tools.x__run({ n: 2, hold_file: ${JSON.stringify(latch)} }); return 'never';`, background: true, wait_ms: 0 })).structuredContent as Envelope;
    assert.equal(cut.status, 'running');
    await peer.waitFor((e) => e.some((x) => x.event === 'call' && x.params?.arguments?.n === 2), 'the second script in its tool call', 60_000);
    process.kill(first.transport.pid!, 'SIGKILL');
    await first.client.close();
    second = await connect(configPath);
    // The ended script's outcome, as it was given before the restart.
    const read = (await run(second.client, { action: 'status', scriptId: done.scriptId })).structuredContent as Envelope;
    assert.deepEqual([read.status, read.ok, read.value, read.scriptId], ['completed', true, 42, done.scriptId]);
    // The one cut off: lost, at once (its process is gone), and never run again.
    const lost = await run(second.client, { action: 'wait', scriptId: cut.scriptId, wait_ms: 0 });
    assert.equal(lost.isError, true);
    assert.match(text(lost), /was running at an instance that stopped before it ended: its outcome is unknown, and it was not run again/);
    const calls = peer.events().filter((e) => e.event === 'call').map((e) => e.params?.arguments?.n);
    assert.deepEqual(calls, [1, 2], 'each tool call ran once');
  } finally {
    writeFileSync(latch, '');
    await second?.client.close();
    await first.client.close().catch(() => {});
  }
});
