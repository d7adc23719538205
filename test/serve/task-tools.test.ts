/**
 * A task-only provider tool through serve over stdio: server-everything's
 * `simulate-research-query` (`execution.taskSupport: "required"`) is listed to serve's client
 * with its `taskSupport` kept, so the SDK client calls it as a task (its own task API:
 * `callToolStream`); serve answers a task of its own and runs the provider's task behind it
 * (gateway-tasks.ts). When the provider's task asks for input (`input_required`, an
 * `elicitation/create` for its task), serve's task is `input_required`, the question reaches
 * the client through its `tasks/result`, and its answer completes the task.
 * test/serve/gateway-tasks.test.ts does the same over HTTP, with cancel and a second session.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { binPath } from '../real-servers/servers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

test('serve (stdio): a task-only tool is a task for the client, and its input_required question reaches that client through tasks/result', { timeout: 120_000 }, async () => {
  const config = join(scratchDir(), 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'ev', command: process.execPath, args: [binPath('everything')] }], codeExecution: false }));
  const client = new Client({ name: 'researcher', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { interpretation: 'historical' } };
  });
  // server-everything registers its task tool after initialization and announces a list change.
  const listed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'ignore' }));
  try {
    let tool = (await client.listTools()).tools.find((t) => t.name === 'ev--simulate-research-query');
    if (!tool) {
      await listed;
      tool = (await client.listTools()).tools.find((t) => t.name === 'ev--simulate-research-query');
    }
    assert.ok(tool, 'the task tool is listed');
    assert.deepEqual(tool.execution, { taskSupport: 'required' });
    assert.equal(tool.title, 'Simulate Research Query');
    const statuses: string[] = [];
    let result: { isError?: boolean; content?: unknown } | undefined;
    for await (const message of client.experimental.tasks.callToolStream({ name: 'ev--simulate-research-query', arguments: { topic: 'lighthouses', ambiguous: true } }, CallToolResultSchema, { timeout: 120_000 })) {
      if (message.type === 'taskStatus') statuses.push(message.task.status);
      else if (message.type === 'result') result = message.result as typeof result;
      else if (message.type === 'error') throw message.error;
    }
    assert.ok(result, 'the task gave a result');
    assert.ok(statuses.includes('input_required'), statuses.join(', '));
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.match(JSON.stringify(result.content), /lighthouses \(historical\)/);
    assert.equal(asked.length, 1, JSON.stringify(asked));
    assert.match(asked[0]!, /lighthouses/);
  } finally {
    await client.close();
  }
});
