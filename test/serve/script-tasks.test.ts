/**
 * `code_execution` as an MCP task through `serve --http` (issue 43 item 1), with the SDK
 * client's own task API: a task-augmented call answers a task at once, `tasks/get` follows the
 * script to `completed` and `tasks/result` gives its result; `tasks/cancel` ends a spinning
 * script; another session's `tasks/get`/`result`/`cancel` of the task id is "not found"
 * (attack first: tasks are scoped to the session that created them). The first test runs a
 * real `toolcell serve --http` process; the others an in-process serve of the fixture host.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallToolResultSchema, CreateTaskResultSchema, type GetTaskResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectClient, serveFixtureHost } from './fixture-host.ts';
import { makePeer, REPO_ROOT, scratchDir, waitUntil } from '../helpers/peers.ts';
import { servingUrl } from '../helpers/serve-url.ts';

/** Starts `code` as a code_execution task; returns the task the server created. */
async function startTask(client: Client, code: string) {
  const created = await client.request({ method: 'tools/call', params: { name: 'code_execution', arguments: { code }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
  return created.task;
}

/** Polls `tasks/get` (at the server's interval) until the task is no longer `working`. */
async function settled(client: Client, taskId: string): Promise<GetTaskResult> {
  let last: GetTaskResult | undefined;
  await waitUntil(async () => {
    last = await client.experimental.tasks.getTask(taskId);
    return last.status !== 'working';
  }, `task ${taskId} to end`, 60_000);
  return last!;
}

type Envelope = { ok: boolean; status?: string; value?: unknown };

test('serve: a task-augmented code_execution call answers a task; polling sees it complete; tasks/result gives the script result', async () => {
  const served = await serveFixtureHost({ rendezvousOf: 2 });
  const { client } = await connectClient(served.serving.url);
  try {
    const listed = (await client.listTools()).tools.find((t) => t.name === 'code_execution');
    assert.deepEqual(listed?.execution, { taskSupport: 'optional' });
    const task = await startTask(client, 'const met = await tools.rendezvous({}); return { met, n: 6 * 7 };');
    assert.equal(task.status, 'working');
    assert.match(task.taskId, /^task_/);
    // The script waits at the rendezvous: the task is still working until a second caller comes.
    await waitUntil(() => served.waiting() === 1, 'the script to reach the rendezvous', 60_000);
    assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, 'working');
    assert.deepEqual((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId), [task.taskId]);
    await client.callTool({ name: 'rendezvous', arguments: {} });
    const done = await settled(client, task.taskId);
    assert.equal(done.status, 'completed');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const envelope = result.structuredContent as Envelope;
    assert.deepEqual([envelope.ok, envelope.status, (envelope.value as { n: number }).n], [true, 'completed', 42]);
  } finally {
    await client.close();
    await served.close();
  }
});

test('serve: tasks/cancel ends a spinning script, and its conversation runs the next script', async () => {
  const served = await serveFixtureHost();
  const { client } = await connectClient(served.serving.url);
  try {
    const task = await startTask(client, 'while (true) {}');
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    assert.equal(cancelled.status, 'cancelled');
    // The script has stopped: the conversation is no longer busy with it.
    await waitUntil(async () => {
      const next = await client.callTool({ name: 'code_execution', arguments: { code: 'return 1 + 1;' } });
      return (next.structuredContent as Envelope | undefined)?.ok === true;
    }, 'the conversation to be free again', 60_000);
    assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
  } finally {
    await client.close();
    await served.close();
  }
});

test('serve: another session cannot get, read or cancel a task; its listing is empty', async () => {
  const served = await serveFixtureHost({ rendezvousOf: 2 });
  const alice = await connectClient(served.serving.url);
  const mallory = await connectClient(served.serving.url);
  try {
    const task = await startTask(alice.client, 'return await tools.rendezvous({});');
    await waitUntil(() => served.waiting() === 1, 'the script to reach the rendezvous', 60_000);
    await assert.rejects(mallory.client.experimental.tasks.getTask(task.taskId), /not found/i);
    await assert.rejects(mallory.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema), /not found/i);
    await assert.rejects(mallory.client.experimental.tasks.cancelTask(task.taskId), /not found/i);
    assert.deepEqual((await mallory.client.experimental.tasks.listTasks()).tasks, []);
    // Alice's script ran on: it still waits, and completes when Mallory's own call meets it.
    assert.equal((await alice.client.experimental.tasks.getTask(task.taskId)).status, 'working');
    await mallory.client.callTool({ name: 'rendezvous', arguments: {} });
    assert.equal((await settled(alice.client, task.taskId)).status, 'completed');
  } finally {
    await alice.client.close();
    await mallory.client.close();
    await served.close();
  }
});

test('toolcell serve --http (a real process): a code_execution task calling a provider completes with its result; a spinning one is cancelled', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({ servers: [provider.config], codeExecution: { languages: ['javascript'] } }));
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'serve', `--config=${configPath}`, '--http', '127.0.0.1:0'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = once(child, 'exit');
  try {
    const url = await servingUrl(child);
    const { client } = await connectClient(url);
    try {
      const task = await startTask(client, 'const r = await tools.x__run({}); return { n: 6 * 7, ran: r !== undefined };');
      assert.equal(task.status, 'working');
      assert.equal((await settled(client, task.taskId)).status, 'completed');
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      const envelope = result.structuredContent as Envelope & { calls: { name: string; status: string }[] };
      assert.deepEqual([envelope.ok, envelope.value], [true, { n: 42, ran: true }]);
      assert.deepEqual(envelope.calls.map((c) => [c.name, c.status]), [['x--run', 'ok']]);
      const spinning = await startTask(client, 'while (true) {}');
      assert.equal((await client.experimental.tasks.cancelTask(spinning.taskId)).status, 'cancelled');
      await waitUntil(async () => {
        const next = await client.callTool({ name: 'code_execution', arguments: { code: 'return 1 + 1;' } });
        return (next.structuredContent as Envelope | undefined)?.ok === true;
      }, 'the conversation to be free again', 60_000);
    } finally {
      await client.close();
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});
