/**
 * A provider's requests of its client through serve: our conformance reference server asks for
 * elicitation and sampling during a call; serve (over Streamable HTTP) forwards each to the
 * SDK client whose call it is, and declines it, saying why, for a client without the
 * capability. server-everything, behind serve with the handlers configured, lists the tools it
 * offers only to clients that can answer its requests. A server down at startup is retried
 * while serve serves, and its tools are announced when it comes up.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { binPath } from '../real-servers/servers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const REFERENCE = join(REPO_ROOT, 'test', 'conformance', 'mcp', 'reference-server.ts');

/** Spawns a child and resolves with the first match of `pattern` in its output. */
function start(args: string[], pattern: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = seen.match(pattern);
      if (match) resolve({ child, match });
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.on('exit', (code) => reject(new Error(`exited ${code} before it was ready:\n${seen}`)));
  });
}

test('elicitation and sampling during a call reach the calling client; a client without the capability gets them declined', async () => {
  const reference = await start(['--import', 'tsx', REFERENCE, '0'], /listening (\S+)/);
  const config = join(scratchDir(), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'ref', url: reference.match[1], prefixTools: false, required: true }], codeExecution: false }));
  const serve = await start(['--import', 'tsx', CLI, 'serve', '--config', config, '--http', '127.0.0.1:0'], /"url":"(http:[^"]+)"[^\n]*serving MCP/);
  const url = new URL(serve.match[1]!);
  const able = new Client({ name: 'able', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
  const unable = new Client({ name: 'unable', version: '1.0.0' });
  try {
    const asked: string[] = [];
    able.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(`elicit:${request.params.message}`);
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    able.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(`sample:${JSON.stringify(request.params.messages[0]?.content)}`);
      return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'test-model' };
    });
    await able.connect(new StreamableHTTPClientTransport(url));
    await unable.connect(new StreamableHTTPClientTransport(url));

    const elicited = await able.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    assert.match(JSON.stringify(elicited.content), /action=accept, content=\{\\"username\\":\\"ada\\"/);
    const sampled = await able.callTool({ name: 'test_sampling', arguments: { prompt: 'the answer?' } });
    assert.match(JSON.stringify(sampled.content), /LLM response: forty-two/);
    assert.deepEqual(asked, ['elicit:Who are you?', 'sample:{"type":"text","text":"the answer?"}']);

    // The reference server's SEP-1034 tool elicits without checking the capability: serve declines it for this client.
    const refused = await unable.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), /did not declare the \\"elicitation\\" capability/);
    assert.equal(asked.length, 2, 'the other client was never asked');
  } finally {
    await able.close();
    await unable.close();
    serve.child.kill('SIGTERM');
    reference.child.kill('SIGTERM');
  }
});

test('server-everything behind serve lists the tools that need client capabilities', async () => {
  const config = join(scratchDir(), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'ev', command: process.execPath, args: [binPath('everything')], prefixTools: false }], codeExecution: false }));
  const client = new Client({ name: 'lister', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'ignore' }));
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const needs of ['trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list']) assert.ok(names.includes(needs), `${needs} in ${names.join(', ')}`);
    assert.ok(names.length >= 16, `${names.length} tools: ${names.join(', ')}`);
  } finally {
    await client.close();
  }
});

test('a server down at startup is retried per its reconnect policy while serve serves; its tools appear with tools/list_changed', async () => {
  // A port that is free now: the server behind it starts only after serve is up.
  const { createServer } = await import('node:net');
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const config = join(scratchDir(), 'toolcell.json');
  writeFileSync(
    config,
    JSON.stringify({
      servers: [{ id: 'late', url: `http://127.0.0.1:${port}/mcp`, prefixTools: false, reconnect: { maxAttempts: 50, delayMs: 200 } }],
      codeExecution: { languages: ['javascript'] },
    }),
  );
  const client = new Client({ name: 'waiter', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'ignore' }));
  let reference: { child: ChildProcess } | undefined;
  try {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['code_execution', 'result_page'], 'serving without the server that is down');
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    reference = await start(['--import', 'tsx', REFERENCE, String(port)], /listening/);
    await changed;
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('test_simple_text'), names.join(', '));
    const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
    assert.deepEqual(result.content, [{ type: 'text', text: 'This is a simple text response for testing.' }]);
  } finally {
    await client.close();
    reference?.child.kill('SIGTERM');
  }
});
