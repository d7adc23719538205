/**
 * A task-only provider tool through serve: server-everything's `simulate-research-query`
 * (`execution.taskSupport: "required"`) is listed to serve's clients as a plain tool
 * (`taskSupport: "forbidden"`: serve runs the task against the provider), so the SDK client
 * calls it with a plain `tools/call`; when the task asks for input (`input_required`, an
 * `elicitation/create` queued for `tasks/result`), the question reaches the client whose call
 * it is, and its answer completes the task.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { binPath } from '../real-servers/servers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

test('serve: a task-only tool is called plainly by the client, and its input_required question reaches that client', { timeout: 120_000 }, async () => {
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
    assert.deepEqual(tool.execution, { taskSupport: 'forbidden' });
    assert.equal(tool.title, 'Simulate Research Query');
    const result = await client.callTool({ name: 'ev--simulate-research-query', arguments: { topic: 'lighthouses', ambiguous: true } });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.match(JSON.stringify(result.content), /lighthouses \(historical\)/);
    assert.equal(asked.length, 1, JSON.stringify(asked));
    assert.match(asked[0]!, /lighthouses/);
  } finally {
    await client.close();
  }
});
