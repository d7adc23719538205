/**
 * The claims of docs/serve-gateway.md that no other test covered (issue 41's acceptance), each
 * against a real `toolcell serve --http` process before two copies of an SDK v1 provider of our
 * own (fixtures/claims-provider.mjs, each behind the wire tee): `pc` with per-client upstream
 * sessions (the default) and `sh` with `"mode": "shared"`. Clients are SDK v1 clients.
 * - serve declares the `tasks` capability to a 2025 gateway session;
 * - a provider task that ends with the provider's own `isError` result ends `failed`;
 * - resources/list, resources/templates/list and prompts/list: every page of every provider,
 *   answered in one page;
 * - a request or notification not in the doc's tables: -32601 / dropped (never sent on);
 * - shared mode over HTTP: a log message reaches no client, a provider request naming no call
 *   is declined (the per-client provider is the control: its log and its question do arrive);
 * - a tool list change inside one client's upstream session leaves `tools/list` alone (a change
 *   on serve's own connection, the control, is announced and listed);
 * - at most 16 questions wait for a task's `tasks/result` (MAX_QUEUED_PER_TASK): the 17th is
 *   refused to the provider.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  EmptyResultSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir, waitUntil } from '../helpers/peers.ts';
import { httpClient, serveHttp, type Serving } from './gateway/two-clients.ts';
import { sentToProvider } from '../helpers/wire-tee-log.ts';

const TEE = join(REPO_ROOT, 'test', 'serve', 'fixtures', 'wire-tee.mjs');
const PROVIDER = join(REPO_ROOT, 'test', 'serve', 'fixtures', 'claims-provider.mjs');

let serving: Serving;
const logs = { pc: '', sh: '' };

before(async () => {
  const dir = scratchDir();
  logs.pc = join(dir, 'pc.log');
  logs.sh = join(dir, 'sh.log');
  const provider = (id: 'pc' | 'sh') => ({ id, command: process.execPath, args: [TEE, logs[id], process.execPath, PROVIDER, id], required: true });
  serving = await serveHttp({ servers: [provider('pc'), { ...provider('sh'), upstreamSessions: { mode: 'shared' } }], codeExecution: false });
});

after(async () => {
  await serving.stop();
});

/** Messages that crossed toward a provider (every process of it writes to its tee's log). */
const sentTo = (id: 'pc' | 'sh') => sentToProvider(logs[id]);

const textOf = (result: Record<string, unknown>) => JSON.stringify(result.content);

test('serve declares the tasks capability (list, cancel, requests.tools.call) to a 2025 gateway session', { timeout: 120_000 }, async () => {
  const { client, end } = await httpClient(serving.url, 'caps');
  try {
    assert.deepEqual(client.getServerCapabilities()?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  } finally {
    await end();
  }
});

test('a provider task that ends failed with its own isError result, or completed with one, ends failed through serve with that result', { timeout: 180_000 }, async () => {
  const { client, end } = await httpClient(serving.url, 'failing');
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const [tool, said] of [['pc--fails-own', 'the disk is full'], ['pc--errs-completed', 'no quota']] as const) {
      assert.ok(names.includes(tool), `${tool} listed: ${names.join(', ')}`);
      let taskId: string | undefined;
      let ended: Error | undefined;
      for await (const message of client.experimental.tasks.callToolStream({ name: tool, arguments: {} }, CallToolResultSchema, { timeout: 120_000 })) {
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        else if (message.type === 'result') assert.fail(`${tool}: a failed provider task gave a result: ${JSON.stringify(message.result)}`);
        else if (message.type === 'error') ended = message.error;
      }
      assert.ok(taskId, `${tool}: serve answered a task`);
      assert.match(ended?.message ?? '', /failed/, `${tool}: the SDK reports the task failed`);
      const task = await client.experimental.tasks.getTask(taskId);
      assert.equal(task.status, 'failed', `${tool}: ${JSON.stringify(task)}`);
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal(result.isError, true, `${tool}: ${JSON.stringify(result)}`);
      assert.match(textOf(result), new RegExp(said), `${tool}: the provider's own result`);
    }
  } finally {
    await end();
  }
});

test('resources/list, resources/templates/list and prompts/list: every page of every provider, in one page', { timeout: 180_000 }, async () => {
  const { client, end } = await httpClient(serving.url, 'pages');
  try {
    const resources = await client.listResources();
    assert.equal(resources.nextCursor, undefined);
    const expected = (tag: string, n: number, make: (tag: string, i: number) => string) => Array.from({ length: n }, (_, i) => make(tag, i));
    const uris = resources.resources.map((r) => r.uri).sort();
    assert.deepEqual(uris, [...expected('pc', 6, (t, i) => `test://${t}/r${i}`), ...expected('sh', 6, (t, i) => `test://${t}/r${i}`)].sort());

    const templates = await client.listResourceTemplates();
    assert.equal(templates.nextCursor, undefined);
    assert.deepEqual(
      templates.resourceTemplates.map((t) => t.uriTemplate).sort(),
      [...expected('pc', 4, (t, i) => `test://${t}/t${i}/{id}`), ...expected('sh', 4, (t, i) => `test://${t}/t${i}/{id}`)].sort(),
    );

    const prompts = await client.listPrompts();
    assert.equal(prompts.nextCursor, undefined);
    assert.deepEqual(prompts.prompts.map((p) => p.name).sort(), [...expected('pc', 4, (t, i) => `pc--${t}-p${i}`), ...expected('sh', 4, (t, i) => `sh--${t}-p${i}`)].sort());

    // serve followed the providers' cursors (read off the wire): page 2 and 3 of resources, page 2 of the others.
    for (const id of ['pc', 'sh'] as const) {
      const cursors = (method: string) => sentTo(id).filter((m) => m.method === method).map((m) => m.params?.cursor ?? null);
      assert.ok(['1', '2'].every((c) => cursors('resources/list').includes(c)), `${id}: ${JSON.stringify(cursors('resources/list'))}`);
      assert.ok(cursors('resources/templates/list').includes('1'), `${id}: ${JSON.stringify(cursors('resources/templates/list'))}`);
      assert.ok(cursors('prompts/list').includes('1'), `${id}: ${JSON.stringify(cursors('prompts/list'))}`);
    }
  } finally {
    await end();
  }
});

test('a request not in the doc\'s tables is answered -32601 and a notification not in them is dropped; neither reaches a provider', { timeout: 120_000 }, async () => {
  const { client, end } = await httpClient(serving.url, 'unknown');
  try {
    await client.notification({ method: 'notifications/claims/unknown', params: { n: 1 } });
    await assert.rejects(
      client.request({ method: 'claims/unknown', params: { n: 2 } }, EmptyResultSchema),
      (error: unknown) => error instanceof McpError && error.code === -32601,
    );
    // The session goes on; a call to each provider after them shows they never went on (the tee logs in order).
    for (const id of ['pc', 'sh'] as const) {
      assert.match(textOf(await client.callTool({ name: `${id}--echo`, arguments: {} })), /echo/);
      const methods = sentTo(id).map((m) => m.method ?? '');
      assert.ok(methods.includes('tools/call'), `${id}: the echo call reached it`);
      assert.ok(!methods.some((m) => m.includes('claims/unknown')), `${id} was sent ${JSON.stringify(methods)}`);
    }
  } finally {
    await end();
  }
});

test('shared mode over HTTP: a log message reaches no client and a provider request naming no call is declined (per-client: both arrive)', { timeout: 180_000 }, async () => {
  const { client, end } = await httpClient(serving.url, 'shared', { elicitation: {} });
  const got: unknown[] = [];
  const asked: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void got.push(n.params.data));
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'decline' };
  });
  try {
    // Control: the per-client provider's log rides the call's stream, its question reaches this client.
    const own = await client.callTool({ name: 'pc--log-and-ask', arguments: {} });
    assert.match(textOf(own), /answered: decline/);
    assert.deepEqual(asked, ['who are you?']);
    await waitUntil(() => got.includes('pc: a log line') || undefined, 'the per-client provider\'s log line', 30_000);

    const shared = await client.callTool({ name: 'sh--log-and-ask', arguments: {} });
    assert.match(textOf(shared), /declined: .*without naming the call it belongs to/, 'the provider was told its request could not be attributed');
    assert.deepEqual(asked, ['who are you?'], 'the shared provider\'s question reached no client');
    // The provider sent its log line before its question; a later round trip through serve comes after both.
    assert.match(textOf(await client.callTool({ name: 'sh--echo', arguments: {} })), /echo/);
    await client.ping();
    assert.ok(!got.includes('sh: a log line'), `the shared connection's log line reached a client: ${JSON.stringify(got)}`);
  } finally {
    await end();
  }
});

test('a tool list change inside one client\'s upstream session leaves tools/list alone; one on serve\'s own connection is announced', { timeout: 180_000 }, async () => {
  const { client, end } = await httpClient(serving.url, 'grower');
  const other = await httpClient(serving.url, 'other');
  let announced = 0;
  other.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void announced++);
  try {
    // pc's `grow` runs in this client's own upstream session (its own process of the provider).
    assert.match(textOf(await client.callTool({ name: 'pc--grow', arguments: {} })), /grew/);
    // A later call in the same session comes after the provider's list_changed (one pipe, in order).
    assert.match(textOf(await client.callTool({ name: 'pc--echo', arguments: {} })), /echo/);
    const sent = readFileSync(logs.pc, 'utf8');
    assert.match(sent, /^< .*notifications\/tools\/list_changed/m, 'the upstream session announced its change');
    for (const c of [client, other.client]) {
      const names = (await c.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('pc--grow') && !names.includes('pc--grown'), `serve's listing changed: ${names.join(', ')}`);
    }
    assert.equal(announced, 0, 'no client was told of a change');

    // Control: sh's `grow` runs on serve's own connection, whose listing every client sees.
    assert.match(textOf(await client.callTool({ name: 'sh--grow', arguments: {} })), /grew/);
    await waitUntil(() => announced > 0 || undefined, 'the other client to be told tools/list_changed', 60_000);
    for (const c of [client, other.client]) {
      const names = (await c.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('sh--grown') && !names.includes('pc--grown'), names.join(', '));
    }
  } finally {
    await other.end();
    await end();
  }
});

test('at most 16 questions wait for a task\'s tasks/result: the 17th is refused to the provider, the 16 are delivered and answered', { timeout: 180_000 }, async () => {
  const { client, end } = await httpClient(serving.url, 'questions', { elicitation: {} });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { ok: true } };
  });
  try {
    // A task-augmented call without reading tasks/result yet, so the questions pile up in serve's queue.
    const created = await client.request({ method: 'tools/call', params: { name: 'pc--asks-17', arguments: {}, task: { ttl: 120_000 } } }, CreateTaskResultSchema);
    const taskId = created.task.taskId;
    // serve's refusal of the 17th crosses to the provider (its tee's log) once 16 wait.
    const refusal = await waitUntil(
      () => readFileSync(logs.pc, 'utf8').split('\n').find((l) => l.startsWith('> ') && l.includes('messages waiting for tasks/result')),
      'serve to refuse a question past its cap',
      120_000,
    ).catch((error: Error) => {
      const asking = readFileSync(logs.pc, 'utf8').split('\n').filter((l) => !l.includes('notifications/tasks/status') && /elicitation|asks-17|tasks\//.test(l));
      throw new Error(`${error.message}; the provider's wire:\n${asking.join('\n').slice(0, 6000)}`);
    });
    assert.match(refusal, /has 16 messages waiting/);
    assert.equal(asked.length, 0, 'no question was delivered before tasks/result');
    assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'input_required');
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.match(textOf(result), /answered 16; refused 1: .*16 messages waiting/, JSON.stringify(result));
    assert.equal(asked.length, 16);
    assert.deepEqual(new Set(asked).size, 16, 'each question once');
  } finally {
    await end();
  }
});
