/**
 * What a provider does to its task on its own, through the gateway (docs/serve-gateway.md,
 * "What is not passed through"; issue 41). A real `toolcell serve --http` process before a
 * provider built on the SDK v1 server with tasks (fixtures/own-will-task-provider.mjs, behind
 * the wire tee), and an SDK v1 client using the SDK's task API:
 * - a task the provider cancels by itself: serve's connection sees the call fail, so the
 *   client's task ends `failed` with the provider's status message in its `isError` result —
 *   not `cancelled` — and serve sends the provider no `tasks/cancel` of its own;
 * - a call run as a task whose provider logs while it works: the request was answered with
 *   the task, so the log messages — and the progress under the request's `progressToken` —
 *   reach the client on the session's standalone GET stream (read off the wire through the
 *   transport's `fetch`), never on a POST's stream.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir, waitUntil } from '../helpers/peers.ts';
import { servingUrl } from '../helpers/serve-url.ts';
import { sentToProvider } from '../helpers/wire-tee-log.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const TEE = join(REPO_ROOT, 'test', 'serve', 'fixtures', 'wire-tee.mjs');
const PROVIDER = join(REPO_ROOT, 'test', 'serve', 'fixtures', 'own-will-task-provider.mjs');

/** The SSE text each HTTP method's responses carried to the client, as it crossed the wire. */
interface Wire {
  GET: string;
  POST: string;
}

/** A fetch that hands the SDK transport every response unchanged and copies its event-stream text into `wire`. */
function recordingFetch(wire: Wire): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const method = (init?.method ?? 'GET').toUpperCase();
    if ((method !== 'GET' && method !== 'POST') || !response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
    const [copy, theirs] = response.body.tee();
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of copy) wire[method] += decoder.decode(chunk, { stream: true });
    })().catch((error: Error) => {
      // The stream ends abruptly when the client closes it (the GET stream at the test's end): what crossed is already recorded.
      if (error.name !== 'AbortError') wire[method] += `\n[recording ended: ${error.message}]\n`;
    });
    return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The ids of the tasks the provider created (its `CreateTaskResult`s in the tee's log). */
function providerTaskIds(log: string): string[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('< '))
    .map((l) => (JSON.parse(l.slice(2)) as { result?: { task?: { taskId?: string } } }).result?.task?.taskId)
    .filter((id): id is string => id !== undefined);
}

let child: ChildProcess;
let exited: Promise<unknown>;
let url: string;
let log: string;

before(async () => {
  const dir = scratchDir();
  log = join(dir, 'wire.log');
  const config = join(dir, 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'own', command: process.execPath, args: [TEE, log, process.execPath, PROVIDER] }], codeExecution: false }));
  child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', `--config=${config}`, '--http', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  exited = once(child, 'exit');
  url = await servingUrl(child);
});

after(async () => {
  child.kill('SIGTERM');
  await exited;
});

/** A client of serve whose wire is recorded and whose log messages are kept. */
async function connect(name: string): Promise<{ client: Client; wire: Wire; logs: unknown[] }> {
  const wire: Wire = { GET: '', POST: '' };
  const logs: unknown[] = [];
  const client = new Client({ name, version: '1.0.0' });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(wire) }));
  return { client, wire, logs };
}

test('serve --http: a task its provider cancels on its own ends failed with the provider\'s message, not cancelled, and serve sends no tasks/cancel', { timeout: 180_000 }, async () => {
  const { client } = await connect('gives-up-client');
  try {
    const listed = (await client.listTools()).tools.find((t) => t.name === 'own--gives-up');
    assert.deepEqual(listed?.execution, { taskSupport: 'required' });

    let taskId: string | undefined;
    let ended: Error | undefined;
    for await (const message of client.experimental.tasks.callToolStream({ name: 'own--gives-up', arguments: {} }, CallToolResultSchema, { timeout: 120_000 })) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      else if (message.type === 'result') assert.fail(`a cancelled provider task gave a result: ${JSON.stringify(message.result)}`);
      else if (message.type === 'error') ended = message.error;
    }
    assert.ok(taskId, 'serve answered a task');
    assert.match(ended?.message ?? '', /failed/, 'the SDK reports the task failed');

    const task = await client.experimental.tasks.getTask(taskId);
    assert.equal(task.status, 'failed', JSON.stringify(task));
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(result.isError, true, JSON.stringify(result));
    const text = JSON.stringify(result.content);
    assert.match(text, /cancelled/, 'the result says the provider\'s task was cancelled');
    assert.match(text, /the provider gave up: quota exhausted/, 'with the provider\'s own status message');

    // The provider's task id stays behind serve (see "The provider's task ids"): not in the task, not in its result.
    const providerTasks = providerTaskIds(log);
    assert.equal(providerTasks.length, 1, 'the provider created one task');
    assert.ok(!JSON.stringify({ task, result, ended: ended?.message }).includes(providerTasks[0]!), `the client saw the provider's task id: ${text}`);

    const upstream = sentToProvider(log);
    assert.ok(upstream.some((m) => m.method === 'tools/call' && m.params?.name === 'gives-up' && m.params?.task !== undefined), 'serve called the provider as a task');
    assert.equal(upstream.filter((m) => m.method === 'tasks/cancel').length, 0, 'the provider ended its task itself: serve cancels nothing');
  } finally {
    await client.close();
  }
});

test('serve --http: log messages and progress of a call run as a task go out on the session\'s standalone GET stream', { timeout: 180_000 }, async () => {
  const { client, wire, logs } = await connect('chatty-client');
  try {
    // The SDK's callToolStream asks for a task only for a tool it saw listed as taking tasks.
    assert.deepEqual((await client.listTools()).tools.find((t) => t.name === 'own--chatty')?.execution, { taskSupport: 'required' });
    let taskId: string | undefined;
    let result: unknown;
    const progress: string[] = [];
    const options = { timeout: 120_000, onprogress: (p: { message?: string }) => void progress.push(p.message ?? '') };
    for await (const message of client.experimental.tasks.callToolStream({ name: 'own--chatty', arguments: {} }, CallToolResultSchema, options)) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      else if (message.type === 'result') result = message.result;
      // The SDK says only "Task <id> failed": the failure message shows the task's result, which says why.
      else if (message.type === 'error') throw new Error(`${message.error.message}: ${JSON.stringify(await client.experimental.tasks.getTaskResult(taskId!, CallToolResultSchema))}`);
    }
    assert.ok(taskId, 'serve answered a task');
    assert.match(JSON.stringify(result), /chatty: done/);

    // The provider logged before it stored its result; the standalone stream may deliver after the polls saw it done.
    await waitUntil(() => logs.length >= 2 || undefined, 'both log messages to reach the client', 30_000);
    assert.deepEqual(logs, ['chatty: step 1', 'chatty: step 2'], 'as the provider sent them, once each, in order');
    assert.match(wire.GET, /chatty: step 1/, 'on the GET stream');
    assert.match(wire.GET, /chatty: step 2/, 'on the GET stream');
    assert.doesNotMatch(wire.POST, /chatty: step/, 'on no request\'s stream');
    // Its progress (the provider task's status message) goes out the same way, under the request's progressToken.
    await waitUntil(() => progress.includes('chatty: working') || undefined, 'the task\'s progress to reach the client', 30_000);
    assert.match(wire.GET, /notifications\/progress[^\n]*chatty: working/, 'progress on the GET stream');
    assert.doesNotMatch(wire.POST, /notifications\/progress/, 'progress on no request\'s stream');
  } finally {
    await client.close();
  }
});
