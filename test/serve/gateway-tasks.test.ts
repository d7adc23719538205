/**
 * A provider's task tool shown to serve's clients as a task (issue 41 item 4): a real
 * `toolcell serve --http` process in front of server-everything (behind a tee that logs what
 * serve sends it), and SDK v1 clients using the SDK's own task API. serve lists
 * `simulate-research-query` with `execution.taskSupport: "required"` kept; a task-augmented
 * call answers a task of serve's own whose status follows the call (`working` →
 * `input_required` while the provider's question waits for the client's `tasks/result` →
 * `completed`), `tasks/cancel` reaches the provider's task, another session gets "not found"
 * for the task id (attack first), and a plain call of the tool still works. In process: the
 * task is one call through the dispatch path (one started, one terminal lifecycle event).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir, waitUntil } from '../helpers/peers.ts';
import { servingUrl } from '../helpers/serve-url.ts';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { GatewayHub } from '../../src/serve/gateway/hub.ts';
import { serveHttp, type HttpServing } from '../../src/serve/http.ts';
import { binPath, officialServer } from '../real-servers/servers.ts';
import { sentToProvider } from '../helpers/wire-tee-log.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const TEE = join(REPO_ROOT, 'test', 'serve', 'fixtures', 'wire-tee.mjs');
const TOOL = 'ev--simulate-research-query';
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** A client that answers elicitations with `historical`, recording what it was asked. */
async function researcher(url: string, name: string): Promise<{ client: Client; asked: ElicitRequest['params'][] }> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked: ElicitRequest['params'][] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return { action: 'accept', content: { interpretation: 'historical' } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  // server-everything registers its task tool once its session initialized, and serve re-lists it.
  await waitUntil(async () => (await client.listTools()).tools.some((t) => t.name === TOOL) || undefined, 'the task tool to be listed', 60_000);
  return { client, asked };
}

test('serve --http: a provider task tool is a task for the client (status, input_required, result), cancel reaches the provider, other sessions cannot see it', { timeout: 240_000 }, async () => {
  const dir = scratchDir();
  const log = join(dir, 'wire.log');
  const config = join(dir, 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'ev', command: process.execPath, args: [TEE, log, process.execPath, binPath('everything')] }], codeExecution: false }));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', `--config=${config}`, '--http', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = once(child, 'exit');
  try {
    const url = await servingUrl(child);
    const alice = await researcher(url, 'alice');
    const mallory = await researcher(url, 'mallory');
    try {
      const listed = (await alice.client.listTools()).tools.find((t) => t.name === TOOL);
      assert.deepEqual(listed?.execution, { taskSupport: 'required' }, 'the provider\'s taskSupport is kept');

      // 1. The SDK's task API end to end: a task of serve's own, input_required while the question waits, then the result.
      const seen: string[] = [];
      let taskId: string | undefined;
      let result: unknown;
      const progress: string[] = [];
      const options = { timeout: 120_000, onprogress: (p: { message?: string }) => void progress.push(p.message ?? '') };
      for await (const message of alice.client.experimental.tasks.callToolStream({ name: TOOL, arguments: { topic: 'lighthouses', ambiguous: true } }, CallToolResultSchema, options)) {
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        else if (message.type === 'taskStatus') {
          if (seen.at(-1) !== message.task.status) seen.push(message.task.status);
        } else if (message.type === 'result') result = message.result;
        else if (message.type === 'error') throw message.error;
      }
      assert.ok(taskId, 'serve answered a task');
      assert.ok(seen.includes('input_required'), `statuses seen: ${seen.join(', ')}`);
      assert.match(JSON.stringify(result), /lighthouses \(historical\)/);
      assert.equal(alice.asked.length, 1);
      assert.match(alice.asked[0]!.message, /lighthouses/);
      // The call's progress (the provider task's stage messages) still reaches the client under its token.
      assert.ok(progress.some((m) => /Gathering sources|Analyzing content|Synthesizing/.test(m)), JSON.stringify(progress));
      // The question names serve's task (the client's), not the provider's task of serve's connection.
      assert.deepEqual(alice.asked[0]!._meta?.[RELATED_TASK], { taskId });
      const upstream = sentToProvider(log).find((m) => m.method === 'tools/call' && m.params?.task !== undefined);
      assert.ok(upstream, 'serve called the provider as a task');
      assert.equal((await alice.client.experimental.tasks.getTask(taskId)).status, 'completed');
      assert.equal(mallory.asked.length, 0, 'the other client was asked nothing');

      // 2. Another session presents the task id: exactly the unknown-task answer.
      const running = (await alice.client.request({ method: 'tools/call', params: { name: TOOL, arguments: { topic: 'tides' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema)).task;
      assert.equal(running.status, 'working');
      // Its status message is the provider task's (its stages), as tasks/get shows it.
      await waitUntil(async () => /Gathering sources|Analyzing content/.test((await alice.client.experimental.tasks.getTask(running.taskId)).statusMessage ?? '') || undefined, 'the provider task\'s status message', 30_000);
      await assert.rejects(mallory.client.experimental.tasks.getTask(running.taskId), /not found/i);
      await assert.rejects(mallory.client.experimental.tasks.getTaskResult(running.taskId, CallToolResultSchema), /not found/i);
      await assert.rejects(mallory.client.experimental.tasks.cancelTask(running.taskId), /not found/i);
      assert.deepEqual((await mallory.client.experimental.tasks.listTasks()).tasks, []);
      assert.deepEqual((await alice.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId).sort(), [taskId, running.taskId].sort());

      // 3. Alice cancels it: serve's task is cancelled and the provider's task gets tasks/cancel.
      assert.equal((await alice.client.experimental.tasks.getTask(running.taskId)).status, 'working', 'Mallory\'s cancel changed nothing');
      const cancelsBefore = sentToProvider(log).filter((m) => m.method === 'tasks/cancel').length;
      assert.equal((await alice.client.experimental.tasks.cancelTask(running.taskId)).status, 'cancelled');
      await waitUntil(() => sentToProvider(log).filter((m) => m.method === 'tasks/cancel').length > cancelsBefore || undefined, 'tasks/cancel to reach the provider', 60_000);
      assert.equal((await alice.client.experimental.tasks.getTask(running.taskId)).status, 'cancelled');

      // 4. A plain call of the "required" tool still works: serve runs the provider's task itself.
      const plain = await alice.client.request({ method: 'tools/call', params: { name: TOOL, arguments: { topic: 'harbours' } } }, CallToolResultSchema, { timeout: 120_000 });
      assert.notEqual(plain.isError, true, JSON.stringify(plain));
      assert.match(JSON.stringify(plain.content), /harbours/);
    } finally {
      await alice.client.close();
      await mallory.client.close();
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});

test('serve (in process): a gateway task is one call through the dispatch path — one started and one terminal lifecycle event', { timeout: 120_000 }, async () => {
  const logger = pino({ level: 'silent' });
  const host = new ToolHost({ logger });
  const phases: string[] = [];
  host.on('lifecycle', (e) => {
    if (e.tool === TOOL) phases.push(e.phase);
  });
  const hub = new GatewayHub(host, logger, { prefixed: () => true, multiClient: true });
  let serving: HttpServing | undefined;
  let client: Client | undefined;
  try {
    await host.connectServer(officialServer('everything', 'ev').config);
    await waitUntil(async () => {
      if (host.listTools().some((t) => t.name === TOOL)) return true;
      await host.server('ev')!.refreshTools();
      return undefined;
    }, 'the task tool to be listed', 60_000);
    serving = await serveHttp(host, { host: '127.0.0.1', port: 0, conversationPrefix: 'http', logger, gateway: hub });
    client = new Client({ name: 'observer-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
    await client.listTools();
    let result: unknown;
    for await (const message of client.experimental.tasks.callToolStream({ name: TOOL, arguments: { topic: 'estuaries' } }, CallToolResultSchema, { timeout: 60_000 })) {
      if (message.type === 'result') result = message.result;
      else if (message.type === 'error') throw message.error;
    }
    assert.match(JSON.stringify(result), /estuaries/);
    await waitUntil(() => phases.some((p) => p !== 'started' && p !== 'progress') || undefined, 'the terminal event', 10_000);
    assert.equal(phases.filter((p) => p === 'started').length, 1, phases.join(','));
    assert.equal(phases.filter((p) => p !== 'started' && p !== 'progress').length, 1, phases.join(','));
  } finally {
    await client?.close();
    await serving?.close();
    hub.close();
    await host.close();
  }
});
