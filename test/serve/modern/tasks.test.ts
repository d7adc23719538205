/**
 * The MCP Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on serve's 2026-07-28
 * endpoint, against a real `toolcell serve --http` process with raw requests as a client of the
 * era sends them: `code_execution` answers a task to a client that declares the extension;
 * `tasks/get` polls it to its result; an approval makes it `input_required` and `tasks/update`
 * answers it (what is approved runs, a malformed answer declines); `tasks/cancel` stops a
 * spinning script; another caller (another peer address) gets exactly the unknown-id answer
 * for a task that is not its own (attack first); `subscriptions/listen` with `taskIds` pushes
 * `notifications/tasks` for the caller's own tasks only; and the gating the extension asks for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { makePeer, REPO_ROOT, scratchDir, waitUntil, type Peer } from '../../helpers/peers.ts';
import { servingUrl } from '../../helpers/serve-url.ts';
import { post2026 } from '../../helpers/post-2026.ts';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { elicitation: { form: {} }, extensions: { [TASKS]: {} } };
const WITHOUT_TASKS = { elicitation: { form: {} } };

function meta(capabilities: Record<string, unknown>) {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-2026-tasks', version: '1.0.0' },
  };
}

interface Serve {
  url: URL;
  provider: Peer;
  child: ChildProcess;
}

async function startServe(): Promise<Serve> {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'send', classes: ['comms'] }, { name: 'look', classes: ['read'] }] });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({ servers: [provider.config], codeExecution: { languages: ['javascript'] }, approvals: { classes: ['comms'] } }));
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'serve', `--config=${configPath}`, '--http', '127.0.0.1:0'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await servingUrl(child);
  return { url: new URL(url), provider, child };
}

async function stop(serve: Serve): Promise<void> {
  const exited = once(serve.child, 'exit');
  serve.child.kill('SIGTERM');
  await exited;
}

let ids = 0;
/**
 * POSTs one request of the era from `from` (a loopback source address: serve tells callers
 * apart by it when it checks no token). Returns the HTTP status and the JSON-RPC answer.
 */
function post(serve: Serve, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = WITH_TASKS, from = '127.0.0.1'): Promise<{ status: number; body: any }> {
  const id = ++ids;
  const name = (params.name ?? params.uri ?? params.taskId) as string | undefined;
  return post2026(serve.url, { jsonrpc: '2.0', id, method, params: { _meta: meta(capabilities), ...params } }, method, name, from);
}

/** Starts `code` as a task; returns the CreateTaskResult. */
async function startTask(serve: Serve, code: string): Promise<any> {
  const created = await post(serve, 'tools/call', { name: 'code_execution', arguments: { code } });
  assert.equal(created.body.result?.resultType, 'task', JSON.stringify(created.body));
  return created.body.result;
}

/** Polls `tasks/get` until the task's status is one of `statuses`. */
async function reaches(serve: Serve, taskId: string, statuses: string[]): Promise<any> {
  let last: any;
  await waitUntil(async () => {
    last = (await post(serve, 'tasks/get', { taskId })).body;
    if (last.error) throw new Error(`tasks/get failed: ${JSON.stringify(last.error)}`);
    return statuses.includes(last.result.status) ? true : undefined;
  }, `task ${taskId} to reach ${statuses.join(' or ')}`, 60_000);
  return last.result;
}

const sends = (provider: Peer) => provider.events().filter((e) => e.event === 'call' && (e.params as any)?.name === 'send').length;
/** An answer without its request id: what a caller can tell apart. */
const shape = (body: any) => ({ status: body.error ? 'error' : 'result', error: body.error, result: body.result });

test('2026 tasks over HTTP: discover names the extension; code_execution answers a task; tasks/get polls it to its result; the gating the extension asks for', async () => {
  const serve = await startServe();
  try {
    const discover = await post(serve, 'server/discover', {});
    assert.deepEqual(discover.body.result.capabilities.extensions, { [TASKS]: {} });
    assert.equal(discover.body.result.capabilities.tasks, undefined, 'no 2025-style tasks capability on the 2026 endpoint');
    const executionOf = (list: any) => Object.fromEntries(list.body.result.tools.map((t: any) => [t.name, t.execution?.taskSupport]));
    const listed = executionOf(await post(serve, 'tools/list', {}));
    assert.equal(listed.code_execution, 'optional', 'a client of the extension sees code_execution may answer a task');
    assert.notEqual(listed['x--send'], 'optional', 'only code_execution runs as a task');
    assert.equal(executionOf(await post(serve, 'tools/list', {}, WITHOUT_TASKS)).code_execution, 'forbidden', 'a client without the extension never gets a task');

    const created = await startTask(serve, 'await tools.x__look({}); return { n: 6 * 7 };');
    assert.match(created.taskId, /^task_[A-Za-z0-9_-]{24}$/);
    assert.equal(created.status, 'working');
    assert.ok(Number.isInteger(created.ttlMs) && created.ttlMs > 0);
    assert.ok(Number.isInteger(created.pollIntervalMs) && created.pollIntervalMs > 0);
    assert.equal(created.ttl, undefined, 'the 2025 field names are not used');
    assert.equal(created.requestState, undefined);
    assert.equal(created._meta['io.modelcontextprotocol/serverInfo'].name, 'toolcell');
    const done = await reaches(serve, created.taskId, ['completed', 'failed', 'cancelled']);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.resultType, 'complete');
    assert.deepEqual(done.result.structuredContent.value, { n: 42 }, JSON.stringify(done.result));
    assert.equal(done.result.resultType, undefined, 'the inner result is the CallToolResult itself');

    // A client that does not declare the extension gets the call's result, as before.
    const plain = await post(serve, 'tools/call', { name: 'code_execution', arguments: { code: 'return 1 + 1;' } }, WITHOUT_TASKS);
    assert.equal(plain.body.result.resultType, 'complete');
    assert.equal(plain.body.result.structuredContent.value, 2);
    // `action: ...` calls answer at once, task or no task.
    const status = await post(serve, 'tools/call', { name: 'code_execution', arguments: { action: 'status', scriptId: 'nope' } });
    assert.equal(status.body.result.resultType, 'complete');

    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const refused = await post(serve, method, { taskId: created.taskId, inputResponses: {} }, WITHOUT_TASKS);
      assert.equal(refused.body.error?.code, -32021, `${method}: ${JSON.stringify(refused.body)}`);
      assert.deepEqual(refused.body.error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
    }
    for (const method of ['tasks/list', 'tasks/result']) {
      const removed = await post(serve, method, { taskId: created.taskId });
      assert.equal(removed.body.error?.code, -32601, `${method}: ${JSON.stringify(removed.body)}`);
    }
    const unknown = await post(serve, 'tasks/get', { taskId: 'task_AAAAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(unknown.body.error?.code, -32602);
    // The routing header must name the task (a load balancer routes on it).
    const misrouted = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: serve.url.hostname, port: serve.url.port, path: serve.url.pathname, method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tasks/get', 'Mcp-Name': 'task_other' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 'h', method: 'tasks/get', params: { _meta: meta(WITH_TASKS), taskId: created.taskId } }));
    });
    assert.equal(misrouted, 400);
  } finally {
    await stop(serve);
  }
});

test('2026 tasks: an approval makes the task input_required; tasks/update with the answer runs exactly what was approved; a malformed answer declines', async () => {
  const serve = await startServe();
  try {
    const created = await startTask(serve, 'await tools.x__send({ to: "ada" }); return "sent";');
    const waiting = await reaches(serve, created.taskId, ['input_required', 'completed', 'failed', 'cancelled']);
    assert.equal(waiting.status, 'input_required', JSON.stringify(waiting));
    const [[key, asked]] = Object.entries(waiting.inputRequests) as [string, any][];
    assert.equal(asked.method, 'elicitation/create');
    assert.match(asked.params.message, /x--send/);
    assert.ok(asked.params._meta['toolcell/approval'].codeDigest, 'the approval names the digest of what will run');
    assert.equal(sends(serve.provider), 0, 'nothing runs before the answer');
    // Polling again shows the same request under the same key.
    const again = await post(serve, 'tasks/get', { taskId: created.taskId });
    assert.deepEqual(Object.keys(again.body.result.inputRequests), [key]);

    // A key never issued is ignored; the task still waits.
    const stray = await post(serve, 'tasks/update', { taskId: created.taskId, inputResponses: { 'input-999': { action: 'accept', content: {} } } });
    assert.equal(stray.body.result?.resultType, 'complete', JSON.stringify(stray.body));
    assert.equal((await post(serve, 'tasks/get', { taskId: created.taskId })).body.result.status, 'input_required');

    const ack = await post(serve, 'tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { forConversation: false } } } });
    assert.deepEqual(Object.keys(ack.body.result).sort(), ['_meta', 'resultType']);
    const done = await reaches(serve, created.taskId, ['completed', 'failed', 'cancelled']);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.result.structuredContent.value, 'sent', JSON.stringify(done.result));
    assert.equal(sends(serve.provider), 1, 'the approved call ran once');

    // A malformed answer ("yes" is not an elicitation action) is a decline: nothing runs.
    const second = await startTask(serve, 'await tools.x__send({ to: "bob" }); return "sent";');
    const asks = await reaches(serve, second.taskId, ['input_required']);
    const key2 = Object.keys(asks.inputRequests)[0]!;
    assert.notEqual(key2, undefined);
    await post(serve, 'tasks/update', { taskId: second.taskId, inputResponses: { [key2]: { action: 'yes' } } });
    const declined = await reaches(serve, second.taskId, ['completed', 'failed', 'cancelled']);
    assert.equal(declined.status, 'completed', 'a declined approval is a tool-level error, not a protocol failure');
    assert.equal(declined.result.isError, true, JSON.stringify(declined.result));
    assert.match(JSON.stringify(declined.result), /declined/);
    assert.equal(sends(serve.provider), 1, 'the declined call did not run');
  } finally {
    await stop(serve);
  }
});

test('2026 tasks: another caller gets exactly the unknown-id answer for a task that is not its own, and cannot answer or cancel it', async () => {
  const serve = await startServe();
  try {
    const created = await startTask(serve, 'await tools.x__send({ to: "ada" }); return "sent";');
    const waiting = await reaches(serve, created.taskId, ['input_required']);
    const key = Object.keys(waiting.inputRequests)[0]!;
    const invented = 'task_AAAAAAAAAAAAAAAAAAAAAAAA';
    const MALLORY = '127.0.0.2';
    for (const [method, extra] of [['tasks/get', {}], ['tasks/update', { inputResponses: { [key]: { action: 'accept', content: {} } } }], ['tasks/cancel', {}]] as const) {
      const theirs = await post(serve, method, { taskId: created.taskId, ...extra }, WITH_TASKS, MALLORY);
      const none = await post(serve, method, { taskId: invented, ...extra }, WITH_TASKS, MALLORY);
      assert.equal(theirs.body.error?.code, -32602, `${method} of another caller's task: ${JSON.stringify(theirs.body)}`);
      assert.deepEqual(shape(theirs.body), shape(none.body), `${method}: another caller's task is answered as an id that never existed`);
      assert.equal(theirs.status, none.status);
    }
    // The owner's task is untouched: still waiting, its approval neither given nor cancelled.
    const mine = await post(serve, 'tasks/get', { taskId: created.taskId });
    assert.equal(mine.body.result.status, 'input_required');
    assert.equal(sends(serve.provider), 0);
    await post(serve, 'tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: {} } } });
    assert.equal((await reaches(serve, created.taskId, ['completed', 'failed', 'cancelled'])).status, 'completed');
    assert.equal(sends(serve.provider), 1);
  } finally {
    await stop(serve);
  }
});

test('2026 tasks: tasks/cancel stops a spinning script; the next task runs', async () => {
  const serve = await startServe();
  try {
    const spinning = await startTask(serve, 'while (true) {}');
    const ack = await post(serve, 'tasks/cancel', { taskId: spinning.taskId });
    assert.equal(ack.body.result?.resultType, 'complete', JSON.stringify(ack.body));
    const cancelled = await reaches(serve, spinning.taskId, ['cancelled', 'completed', 'failed']);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.result, undefined);
    // Cancel again: acknowledged, still cancelled.
    assert.equal((await post(serve, 'tasks/cancel', { taskId: spinning.taskId })).body.result?.resultType, 'complete');
    const next = await startTask(serve, 'return "after";');
    assert.equal((await reaches(serve, next.taskId, ['completed'])).result.structuredContent.value, 'after');
  } finally {
    await stop(serve);
  }
});

/** Opens `subscriptions/listen` over SSE from `from`; collects the stream's messages until closed. */
function listen(serve: Serve, notifications: Record<string, unknown>, from = '127.0.0.1') {
  const messages: any[] = [];
  const id = ++ids;
  const req = httpRequest({
    host: serve.url.hostname,
    port: serve.url.port,
    path: serve.url.pathname,
    method: 'POST',
    localAddress: from,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'subscriptions/listen' },
  }, (res) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        for (const line of event.split('\n')) if (line.startsWith('data: ')) messages.push(JSON.parse(line.slice(6)));
      }
    });
  });
  req.on('error', () => undefined);
  req.end(JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: meta(WITH_TASKS), notifications } }));
  return {
    messages,
    waitFor: (label: string, predicate: (m: any) => boolean) => waitUntil(() => messages.find(predicate), label, 60_000),
    close: () => req.destroy(),
  };
}

test('2026 tasks: subscriptions/listen with taskIds acknowledges and pushes notifications/tasks for the caller\'s own tasks only', async () => {
  const serve = await startServe();
  try {
    const mine = await startTask(serve, 'await tools.x__send({ to: "ada" }); return "sent";');
    const waiting = await reaches(serve, mine.taskId, ['input_required']);
    const key = Object.keys(waiting.inputRequests)[0]!;
    const MALLORY = '127.0.0.2';
    const created = await post(serve, 'tools/call', { name: 'code_execution', arguments: { code: 'while (true) {}' } }, WITH_TASKS, MALLORY);
    const theirs = created.body.result.taskId as string;

    // Asking for task notifications without declaring the extension: -32021.
    const undeclared = await post(serve, 'subscriptions/listen', { notifications: { taskIds: [mine.taskId] } }, WITHOUT_TASKS);
    assert.equal(undeclared.body.error?.code, -32021, JSON.stringify(undeclared.body));

    const stream = listen(serve, { taskIds: [mine.taskId, theirs, 'task_AAAAAAAAAAAAAAAAAAAAAAAA'] });
    try {
      const ack = await stream.waitFor('the acknowledgement', (m) => m.method === 'notifications/subscriptions/acknowledged');
      assert.deepEqual(ack.params.notifications.taskIds, [mine.taskId], "another caller's task is left out like an unknown one");
      await post(serve, 'tasks/cancel', { taskId: theirs }, WITH_TASKS, MALLORY);
      await post(serve, 'tasks/update', { taskId: mine.taskId, inputResponses: { [key]: { action: 'accept', content: {} } } });
      const done = await stream.waitFor('the completed notification', (m) => m.method === 'notifications/tasks' && m.params.status === 'completed');
      assert.equal(done.params.taskId, mine.taskId);
      assert.equal(done.params.result.structuredContent.value, 'sent', JSON.stringify(done.params));
      assert.ok(done.params._meta['io.modelcontextprotocol/subscriptionId'] !== undefined);
      const tasksSeen = stream.messages.filter((m) => m.method === 'notifications/tasks').map((m) => m.params.taskId);
      assert.ok(!tasksSeen.includes(theirs), "no notification of another caller's task");
      assert.equal((await post(serve, 'tasks/get', { taskId: theirs }, WITH_TASKS, MALLORY)).body.result.status, 'cancelled');
    } finally {
      stream.close();
    }
  } finally {
    await stop(serve);
  }
});

test('2026 tasks over stdio: the process\'s one client gets a task, answers its approval with tasks/update, and reads the result', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'send', classes: ['comms'] }] });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({ servers: [provider.config], codeExecution: { languages: ['javascript'] }, approvals: { classes: ['comms'] } }));
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'serve', '--config', configPath], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = once(child, 'exit');
  const waiting = new Map<number, (m: any) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line);
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  const request = (method: string, params: Record<string, unknown>): Promise<any> => {
    const id = ++ids;
    const answered = new Promise<any>((resolve) => waiting.set(id, resolve));
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta: meta(WITH_TASKS), ...params } })}\n`);
    return answered;
  };
  const until = async (taskId: string, statuses: string[]) => {
    let last: any;
    await waitUntil(async () => {
      last = (await request('tasks/get', { taskId })).result;
      return statuses.includes(last?.status) ? true : undefined;
    }, `task to reach ${statuses.join(' or ')}`, 60_000);
    return last;
  };
  try {
    const created = (await request('tools/call', { name: 'code_execution', arguments: { code: 'await tools.x__send({ to: "ada" }); return "sent";' } })).result;
    assert.equal(created?.resultType, 'task', JSON.stringify(created));
    const asks = await until(created.taskId, ['input_required']);
    const key = Object.keys(asks.inputRequests)[0]!;
    assert.equal(sends(provider), 0);
    assert.equal((await request('tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: {} } } })).result?.resultType, 'complete');
    const done = await until(created.taskId, ['completed', 'failed', 'cancelled']);
    assert.equal(done.result?.structuredContent?.value, 'sent', JSON.stringify(done));
    assert.equal(sends(provider), 1);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});
