/**
 * `toolcell serve` as MCP clients use it (issue 8): every request of a client shares one
 * conversation, so two parallel `code_execution` calls must not refuse each other — the second
 * waits its turn. Real CLI process, the SDK's client, a real fixture provider.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makePeer, REPO_ROOT, scratchDir } from '../helpers/peers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

test('serve: a second script in the same conversation waits for the first, and both complete', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({ servers: [provider.config], codeExecution: { languages: ['javascript', 'python'] } }));
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', configPath], cwd: REPO_ROOT, stderr: 'ignore' }),
  );
  try {
    const latch = join(dir, 'latch');
    const first = client.callTool({
      name: 'code_execution',
      arguments: { code: `await tools.x__run({ hold_file: ${JSON.stringify(latch)} }); return 'first';` },
    });
    await provider.waitFor((e) => e.some((x) => x.event === 'call'), 'the first script holds the conversation');
    const second = client.callTool({ name: 'code_execution', arguments: { code: '(await tools.x__run({"n": 2}))["args"]["n"]', language: 'python' } });
    writeFileSync(latch, '');
    const [a, b] = await Promise.all([first, second]);
    assert.equal((a.structuredContent as any)?.value, 'first', JSON.stringify(a));
    assert.equal((b.structuredContent as any)?.value, 2, JSON.stringify(b));
    // The second script ran only after the first one's call had its result.
    const log = provider.events().filter((x) => x.event === 'call' || x.event === 'result');
    assert.deepEqual(log.map((x) => x.event), ['call', 'result', 'call', 'result']);
    assert.equal(log[2]!.params.arguments.n, 2);
  } finally {
    await client.close();
  }
});
