/**
 * `toolcell serve` end to end: a real MCP client (the SDK's) spawns the CLI, which spawns a
 * fixture provider and an observer; the client's calls — and a script's — reach the observer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makePeer, observePolicy, REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { recordProgress } from './fixture-host.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

test('serve exposes the configured tools and code_execution over MCP, and observers see every call', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const observer = makePeer(dir, 'obs', { observer: true });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      servers: [provider.config, { ...observer.config, policy: observePolicy() }],
      codeExecution: { languages: ['javascript'] },
    }),
  );
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', configPath], cwd: REPO_ROOT, stderr: 'ignore' });
  await client.connect(transport);
  const progress = recordProgress(transport);
  try {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual((byName.get('x--run')?._meta as any)?.['mcpl/class'], ['shell']);
    assert.ok(byName.get('code_execution')?.description?.includes('x__run'), 'the description declares the tools scripts may call');
    const direct = await client.callTool({ name: 'x--run', arguments: { a: 1 } });
    assert.ok(!direct.isError, JSON.stringify(direct));
    const script = await client.callTool({
      name: 'code_execution',
      arguments: { code: 'const r = await tools.x__run({ b: 2 }); return r.args.b;' },
      _meta: { 'agent-framework/conversationId': 'conv_client' },
    });
    assert.equal((script.structuredContent as any)?.value, 2, JSON.stringify(script));
    // Progress over stdio: how the script is going, one step per inner call done.
    const twice = await client.callTool(
      { name: 'code_execution', arguments: { code: 'await tools.x__run({ c: 1 }); await tools.x__run({ c: 2 }); return "done"' } },
      undefined,
      { onprogress: () => {} },
    );
    assert.equal((twice.structuredContent as any)?.value, 'done', JSON.stringify(twice));
    assert.deepEqual(progress.map((p) => p.progress), [1, 2]);
    const unknown = await client.callTool({ name: 'x--nope', arguments: {} });
    assert.equal(unknown.isError, true);
    const events = await observer.waitFor((e) => e.filter((x) => x.event === 'lifecycle').length >= 12, 'twelve lifecycle events');
    const life = events.filter((x) => x.event === 'lifecycle').map((x) => x.params);
    const parent = life.find((p) => p.tool === 'code_execution')!;
    assert.equal(parent.conversationId, 'conv_client');
    const inner = life.filter((p) => p._meta?.['agent-framework/parentToolCallId'] === parent.toolCallId);
    assert.deepEqual(inner.map((p) => [p.tool, p.phase]), [['x--run', 'started'], ['x--run', 'completed']]);
    assert.equal(life.filter((p) => p.tool === 'x--nope').length, 0, 'a refused call is never reported');
  } finally {
    await client.close();
  }
});

test('serve rejects a malformed config with the path of each mistake', () => {
  const dir = scratchDir();
  const configPath = join(dir, 'bad.json');
  writeFileSync(configPath, JSON.stringify({ servers: [{ id: 'x' }], codeExecution: { languages: ['cobol'] } }));
  const run = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'serve', '--config', configPath], { cwd: REPO_ROOT, encoding: 'utf8', input: '' });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /servers\[0\]: a server needs "command"/);
  assert.match(run.stderr, /codeExecution/);
});
