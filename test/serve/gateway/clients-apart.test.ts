/**
 * Two MCP clients on one `toolcell serve --http`, in front of the real server-everything (a
 * stateful provider over stdio): nothing of one client — its provider requests, answers, roots,
 * log messages, log level or provider-side state — reaches or changes the other. Each client
 * gets its own upstream session; one that ends releases it. SDK v1 clients, real processes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  type ElicitRequest,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { binPath } from '../../real-servers/servers.ts';
import { childPids, httpClient, serveHttp, signal, textOf, until } from './two-clients.ts';

const EVERYTHING = { id: 'ev', command: process.execPath, args: [binPath('everything')], prefixTools: false, required: true };
const ALL = { elicitation: {}, sampling: {}, roots: { listChanged: true } };

test('a provider request goes to the client whose call it is, even with another client\'s call open; answers pass unchanged', async () => {
  const serve = await serveHttp({ servers: [EVERYTHING], codeExecution: false });
  const a = await httpClient(serve.url, 'alice', ALL);
  const b = await httpClient(serve.url, 'bob', ALL);
  try {
    const asked: string[] = [];
    let aParams: ElicitRequest['params'] | undefined;
    const bAsked = signal('bob to be asked during his own call, while alice\'s call is open', 60_000);
    let bCall: Promise<unknown> | undefined;
    a.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push('alice');
      aParams = request.params;
      // Bob's call opens while alice's is still open: his request must reach him, not her.
      bCall = b.client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      await bAsked.promise;
      // Left out: every field with a default (serve must not fill them in). A format the
      // provider does not check is not refused on the way either.
      return { action: 'accept', content: { name: 'alice', email: 'not-an-email' } };
    });
    b.client.setRequestHandler(ElicitRequestSchema, async () => {
      asked.push('bob');
      bAsked.resolve();
      return { action: 'accept', content: { name: 'bob' } };
    });
    const aResult = textOf(await a.client.callTool({ name: 'trigger-elicitation-request', arguments: {} }));
    const bResult = textOf((await bCall) as { content?: unknown });
    assert.deepEqual(asked.sort(), ['alice', 'bob']);
    assert.match(aResult, /- Name: alice/);
    assert.doesNotMatch(aResult, /bob/);
    assert.match(bResult, /- Name: bob/);
    assert.doesNotMatch(bResult, /alice/);
    // The answer reached the provider unchanged: no default filled in, the email as given.
    const raw = JSON.parse(aResult.slice(aResult.indexOf('Raw result: ') + 'Raw result: '.length)) as { content: Record<string, unknown> };
    assert.deepEqual(raw.content, { name: 'alice', email: 'not-an-email' });
    // And the request reached the client as the provider sent it: no `mode` added.
    assert.equal(aParams !== undefined && 'mode' in aParams, false, JSON.stringify(aParams));

    const sampled: string[] = [];
    a.client.setRequestHandler(CreateMessageRequestSchema, async () => {
      sampled.push('alice');
      return { role: 'assistant', content: { type: 'text', text: 'alice-model' }, model: 'a' };
    });
    b.client.setRequestHandler(CreateMessageRequestSchema, async () => {
      sampled.push('bob');
      return { role: 'assistant', content: { type: 'text', text: 'bob-model' }, model: 'b' };
    });
    const [sa, sb] = await Promise.all([
      a.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } }),
      b.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } }),
    ]);
    assert.match(textOf(sa), /alice-model/);
    assert.doesNotMatch(textOf(sa), /bob-model/);
    assert.match(textOf(sb), /bob-model/);
    assert.doesNotMatch(textOf(sb), /alice-model/);
    assert.deepEqual(sampled.sort(), ['alice', 'bob']);
  } finally {
    await a.end();
    await b.end();
    await serve.stop();
  }
});

test('roots, resources and the log level are per client: B never reads A\'s roots or session resources, nor silences A', async () => {
  const serve = await serveHttp({ servers: [EVERYTHING], codeExecution: false });
  const a = await httpClient(serve.url, 'alice', ALL);
  const b = await httpClient(serve.url, 'bob', ALL);
  try {
    a.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///home/alice', name: 'alice' }] }));
    b.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///home/bob', name: 'bob' }] }));
    const aLogs: LoggingMessageNotification['params'][] = [];
    const bLogs: LoggingMessageNotification['params'][] = [];
    a.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void aLogs.push(n.params));
    b.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void bLogs.push(n.params));

    // Bob asks for emergencies only: that is his level, not alice's.
    await b.client.setLoggingLevel('emergency');
    const aRoots = textOf(await a.client.callTool({ name: 'get-roots-list', arguments: {} }));
    assert.match(aRoots, /file:\/\/\/home\/alice/);
    assert.doesNotMatch(aRoots, /bob/);
    // The provider logs (level info) that it received alice's roots: alice hears it, bob does not.
    await until('alice to hear the provider log her roots', () => aLogs.some((l) => /Roots updated: 1 root/.test(String(l.data))));

    const bRoots = textOf(await b.client.callTool({ name: 'get-roots-list', arguments: {} }));
    assert.match(bRoots, /file:\/\/\/home\/bob/);
    assert.doesNotMatch(bRoots, /alice/);

    // A resource alice's call created lives in alice's upstream session only.
    const made = await a.client.callTool({ name: 'gzip-file-as-resource', arguments: { name: 'alice.gz', data: 'data:text/plain,secret-of-alice', outputType: 'resourceLink' } });
    assert.equal(made.isError ?? false, false, JSON.stringify(made));
    const uri = 'demo://resource/session/alice.gz';
    assert.ok((await a.client.listResources()).resources.some((r) => r.uri === uri), 'alice lists her resource');
    assert.equal((await a.client.readResource({ uri })).contents.length, 1);
    assert.equal((await b.client.listResources()).resources.some((r) => r.uri === uri), false, 'bob does not list alice\'s resource');
    await assert.rejects(b.client.readResource({ uri }), /not found/i);

    // Round trips on bob's session after alice's log: nothing of alice's reached him.
    await b.client.ping();
    await b.client.listTools();
    assert.deepEqual(bLogs.filter((l) => /alice|Roots updated: 1/.test(JSON.stringify(l))), [], JSON.stringify(bLogs));
  } finally {
    await a.end();
    await b.end();
    await serve.stop();
  }
});

test('each client gets its own upstream session; ending a session releases it; past the bound, calls are refused, never shared', async () => {
  const serve = await serveHttp({ servers: [{ ...EVERYTHING, upstreamSessions: { max: 1 } }], codeExecution: false });
  const pid = serve.child.pid!;
  const a = await httpClient(serve.url, 'alice', ALL);
  const b = await httpClient(serve.url, 'bob', ALL);
  try {
    const before = childPids(pid).length;
    const echo = await a.client.callTool({ name: 'echo', arguments: { message: 'a' } });
    assert.match(textOf(echo), /Echo: a/);
    assert.equal(childPids(pid).length, before + 1, 'alice\'s upstream session is its own provider process');
    const refused = await b.client.callTool({ name: 'echo', arguments: { message: 'b' } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /server ev has all of its 1 upstream sessions in use by other clients/);
    await a.end();
    await until('alice\'s upstream session to be released', () => childPids(pid).length === before);
    const echoed = await b.client.callTool({ name: 'echo', arguments: { message: 'b' } });
    assert.match(textOf(echoed), /Echo: b/);
  } finally {
    await a.end();
    await b.end();
    await serve.stop();
  }
});

test('log messages of a client\'s script calls go to that client alone, not to an idle other client', async () => {
  const serve = await serveHttp({ servers: [EVERYTHING], codeExecution: { languages: ['javascript'] } });
  const a = await httpClient(serve.url, 'alice', { roots: {} });
  const b = await httpClient(serve.url, 'bob');
  try {
    a.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///home/alice', name: 'alice' }] }));
    const aLogs: unknown[] = [];
    const bLogs: unknown[] = [];
    a.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void aLogs.push(n.params.data));
    b.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void bLogs.push(n.params.data));
    const ran = await a.client.callTool({ name: 'code_execution', arguments: { code: 'return await tools["get-roots-list"]({})' } });
    assert.match(JSON.stringify(ran.structuredContent), /file:\/\/\/home\/alice/);
    await until('alice to hear the provider log her roots', () => aLogs.some((d) => /Roots updated: 1 root/.test(String(d))));
    await b.client.ping();
    await b.client.listTools();
    assert.deepEqual(bLogs, []);
  } finally {
    await a.end();
    await b.end();
    await serve.stop();
  }
});
