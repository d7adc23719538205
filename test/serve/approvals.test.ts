/**
 * Serve mode asks the client's user: the SDK client spawns `toolcell serve` with `approvals`
 * in its config and answers `elicitation/create` requests — accepting (for the conversation),
 * declining — and a client without the elicitation capability is declined, never approved.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { makePeer, REPO_ROOT, scratchDir, type Peer } from '../helpers/peers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

async function startServe(answer: ((request: ElicitRequest['params']) => ElicitResult) | undefined): Promise<{ client: Client; provider: Peer; asked: ElicitRequest['params'][] }> {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'send', classes: ['comms'] }, { name: 'run', classes: ['shell'] }] });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({
    servers: [provider.config],
    codeExecution: { languages: ['javascript', 'python'] },
    approvals: { classes: ['comms'] },
  }));
  const client = new Client({ name: 'test-client', version: '1.0.0' }, answer ? { capabilities: { elicitation: { form: {} } } } : {});
  const asked: ElicitRequest['params'][] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return answer(request.params);
    });
  }
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', configPath], cwd: REPO_ROOT, stderr: 'ignore' });
  await client.connect(transport);
  return { client, provider, asked };
}

const sends = (provider: Peer) => provider.events().filter((e) => e.event === 'call' && (e.params as any)?.name === 'send').length;
const SCRIPT = { code: 'for (let i = 0; i < 5; i++) {\n  await tools.x__send({ i });\n}\nreturn "sent";' };

test('serve: the client accepts for the conversation: asked once, with the tools, lines and model call; not asked again', async () => {
  const { client, provider, asked } = await startServe(() => ({ action: 'accept', content: { forConversation: true } }));
  try {
    const first = await client.callTool({ name: 'code_execution', arguments: SCRIPT });
    assert.equal((first.structuredContent as any)?.value, 'sent', JSON.stringify(first));
    assert.equal(asked.length, 1);
    const request = asked[0]!;
    assert.match(request.message, /x--send \(line 2\)/);
    const meta = (request._meta as any)?.['toolcell/approval'];
    assert.deepEqual(meta.tools.map((t: any) => [t.tool, t.lines]), [['x--send', [2]]]);
    assert.equal(typeof meta.parentToolCallId, 'string');
    assert.ok('forConversation' in ((request as any).requestedSchema.properties), 'the form offers "for this conversation"');
    const second = await client.callTool({ name: 'code_execution', arguments: { code: 'await tools.x__send({})\nprint("again")', language: 'python' } });
    assert.equal((second.structuredContent as any)?.stdout, 'again\n', JSON.stringify(second));
    assert.equal(asked.length, 1, 'the conversation grant holds for the next execution');
    assert.equal(sends(provider), 6);
    // The grant is the conversation's: the model's own call to the tool is not asked about either.
    const direct = await client.callTool({ name: 'x--send', arguments: {} });
    assert.ok(!direct.isError, JSON.stringify(direct));
    assert.equal(asked.length, 1);
    // Another conversation has no grant: its call is asked about on its own (a one-call form).
    const elsewhere = await client.callTool({ name: 'x--send', arguments: {}, _meta: { 'agent-framework/conversationId': 'other' } });
    assert.ok(!elsewhere.isError, JSON.stringify(elsewhere));
    assert.equal(asked.length, 2);
    assert.match(asked[1]!.message, /^Allow x--send, called by model call /);
    assert.deepEqual(Object.keys((asked[1] as any).requestedSchema.properties), [], 'a single call offers accept / decline only');
  } finally {
    await client.close();
  }
});

test('serve: the client declines: nothing runs and the result says so', async () => {
  const { client, provider, asked } = await startServe(() => ({ action: 'decline' }));
  try {
    const result = await client.callTool({ name: 'code_execution', arguments: SCRIPT });
    assert.equal(result.isError, true);
    assert.match((result.content as any)[0].text, /^approval declined; nothing ran: declined by the client's user/);
    assert.equal(asked.length, 1);
    const direct = await client.callTool({ name: 'x--send', arguments: {} });
    assert.equal(direct.isError, true);
    assert.match((direct.content as any)[0].text, /not approved: declined by the client's user/);
    assert.equal(sends(provider), 0, 'the provider was never called');
  } finally {
    await client.close();
  }
});

test('serve: a client without the elicitation capability gets every gated call declined, with the reason', async () => {
  const { client, provider } = await startServe(undefined);
  try {
    const result = await client.callTool({ name: 'code_execution', arguments: SCRIPT });
    assert.equal(result.isError, true);
    assert.match((result.content as any)[0].text, /^approval declined; nothing ran: .*did not declare the elicitation capability/);
    const direct = await client.callTool({ name: 'x--send', arguments: {} });
    assert.equal(direct.isError, true);
    assert.match((direct.content as any)[0].text, /did not declare the elicitation capability/);
    // Tools the config does not gate run as before.
    const run = await client.callTool({ name: 'x--run', arguments: {} });
    assert.ok(!run.isError, JSON.stringify(run));
    assert.equal(sends(provider), 0);
  } finally {
    await client.close();
  }
});
