/**
 * serve's `tools/list` passes every field of a provider's tool through — title, icons,
 * outputSchema, annotations, execution, _meta — over stdio and over Streamable HTTP, with the
 * model-facing name, the provider's `execution` kept (serve takes task-augmented calls of a
 * provider's task tool, gateway-tasks.ts) and the effective class in `_meta["mcpl/class"]`. `code_execution` has a title and
 * annotations derived from the tools a script can reach. The provider is a real SDK server
 * process (gateway/described-provider.ts); the client is the SDK's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { DESCRIBED_TOOLS } from './gateway/described-tools.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const PROVIDER = join(REPO_ROOT, 'test', 'serve', 'gateway', 'described-provider.ts');

function writeConfig(): string {
  const path = join(scratchDir(), 'toolcell.json');
  const server = { id: 'gl', command: process.execPath, args: ['--import', 'tsx', PROVIDER], cwd: REPO_ROOT, classOverrides: { erase: ['files'] } };
  writeFileSync(path, JSON.stringify({ servers: [server], codeExecution: { languages: ['javascript'] } }));
  return path;
}

function checkListing(tools: Tool[]): void {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const [lookup, erase] = DESCRIBED_TOOLS;
  assert.deepEqual(byName.get('gl--lookup'), {
    ...lookup,
    name: 'gl--lookup',
    _meta: { 'example.com/owner': 'docs-team', 'mcpl/class': ['notes'] },
  });
  assert.deepEqual(byName.get('gl--erase'), { ...erase, name: 'gl--erase', _meta: { 'mcpl/class': ['files'] } });
  const code = byName.get('code_execution');
  assert.ok(code, tools.map((t) => t.name).join(', '));
  assert.equal(code.title, 'Run code that calls tools');
  // A script can reach erase (destructive) and lookup (read-only); neither reaches the open world.
  assert.deepEqual(code.annotations, { title: 'Run code that calls tools', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
  // code_execution alone runs as an MCP task where a client asks for one (script-tasks.ts).
  assert.deepEqual(code.execution, { taskSupport: 'optional' });
  assert.deepEqual(code._meta, { 'mcpl/class': ['shell'] });
}

async function exercise(client: Client): Promise<void> {
  checkListing((await client.listTools()).tools);
  // The output schema the client now holds is the provider's: the structured result validates against it.
  const looked = await client.callTool({ name: 'gl--lookup', arguments: { word: 'gateway' } });
  assert.deepEqual(looked.structuredContent, { meaning: 'gateway: a word' });
}

test('stdio: a provider tool reaches the client with every field it was listed with', async () => {
  const client = new Client({ name: 'lister', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', writeConfig()], cwd: REPO_ROOT, stderr: 'ignore' }));
  try {
    await exercise(client);
  } finally {
    await client.close();
  }
});

test('Streamable HTTP: a provider tool reaches the client with every field it was listed with', async () => {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--config', writeConfig(), '--http', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const client = new Client({ name: 'lister', version: '1.0.0' });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        const match = seen.match(/"url":"(http:[^"]+)"[^\n]*serving MCP/);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code} before serving:\n${seen}`)));
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await exercise(client);
  } finally {
    await client.close();
    child.kill('SIGTERM');
  }
});
