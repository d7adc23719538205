/**
 * Approvals hold for a provider's task tool run as a client's task (gateway-tasks.ts): the
 * task's run is one dispatch through ToolHost, so serve's approval gate asks before the
 * provider is called. The call's request was answered with the task, so the approval
 * (`elicitation/create`) waits for the client's `tasks/result` and the task is
 * `input_required` meanwhile. Declined: the task fails and the provider never sees the call;
 * accepted: the provider's task runs and the task completes. A real `toolcell serve` process
 * over stdio, server-everything behind a wire tee, the SDK v1 client's task API.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema, ToolListChangedNotificationSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir, waitUntil } from '../helpers/peers.ts';
import { binPath } from '../real-servers/servers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const TEE = join(REPO_ROOT, 'test', 'serve', 'fixtures', 'wire-tee.mjs');
const TOOL = 'ev--simulate-research-query';

/** Runs the tool as a task through the SDK's task API: the statuses seen and how it ended. */
async function runAsTask(client: Client, topic: string): Promise<{ taskId?: string; statuses: string[]; result?: { isError?: boolean; content?: unknown }; error?: Error }> {
  const statuses: string[] = [];
  let taskId: string | undefined;
  for await (const message of client.experimental.tasks.callToolStream({ name: TOOL, arguments: { topic } }, CallToolResultSchema, { timeout: 120_000 })) {
    if (message.type === 'taskCreated') taskId = message.task.taskId;
    else if (message.type === 'taskStatus') statuses.push(message.task.status);
    else if (message.type === 'result') return { taskId, statuses, result: message.result as { isError?: boolean; content?: unknown } };
    else if (message.type === 'error') return { taskId, statuses, error: message.error };
  }
  return { taskId, statuses };
}

test('serve (stdio): an approval of a provider task tool run as a task comes through tasks/result; declined, the provider is never called', { timeout: 240_000 }, async () => {
  const dir = scratchDir();
  const log = join(dir, 'wire.log');
  const config = join(dir, 'toolcell.json');
  writeFileSync(config, JSON.stringify({
    servers: [{ id: 'ev', command: process.execPath, args: [TEE, log, process.execPath, binPath('everything')], classOverrides: { 'simulate-research-query': ['comms'] } }],
    codeExecution: false,
    approvals: { classes: ['comms'] },
  }));
  const calledAtProvider = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('> ') && l.includes('"tools/call"') && l.includes('simulate-research-query')).length : 0);
  const client = new Client({ name: 'approver', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const asked: ElicitRequest['params'][] = [];
  let answer: ElicitResult = { action: 'decline' };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return answer;
  });
  const listed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'ignore' }));
  try {
    if (!(await client.listTools()).tools.some((t) => t.name === TOOL)) await listed;
    await waitUntil(async () => (await client.listTools()).tools.some((t) => t.name === TOOL) || undefined, 'the task tool to be listed', 60_000);

    const declined = await runAsTask(client, 'tides');
    assert.equal(asked.length, 1, 'asked once');
    assert.match(asked[0]!.message, /simulate-research-query/);
    assert.ok(declined.statuses.includes('input_required'), declined.statuses.join(', '));
    assert.equal(declined.result?.isError, true, JSON.stringify(declined));
    assert.equal((await client.experimental.tasks.getTask(declined.taskId!)).status, 'failed');
    assert.equal(calledAtProvider(), 0, 'the provider never saw the declined call');

    answer = { action: 'accept', content: {} };
    const accepted = await runAsTask(client, 'harbours');
    assert.equal(asked.length, 2);
    assert.ok(accepted.result, accepted.error?.message ?? accepted.statuses.join(', '));
    assert.notEqual(accepted.result.isError, true, JSON.stringify(accepted.result));
    assert.match(JSON.stringify(accepted.result.content), /harbours/);
    assert.equal(calledAtProvider(), 1, 'the approved call reached the provider once');
  } finally {
    await client.close();
  }
});
