/**
 * The official MCP servers from npm, used through the library as a new user would. None of
 * them advertises `experimental.mcpl`: each must be a plain provider — no policy exchange, no
 * lifecycle notifications, no `tools/observe` — with its tools listed, classed by operator
 * overrides (or unclassed), and dispatched like any other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText } from '../../src/host/results.ts';
import { makePeer, observePolicy, scratchDir } from '../helpers/peers.ts';
import { officialServer } from './servers.ts';

const silent = () => pino({ level: 'silent' });
/** What a plain MCP server may receive from us: nothing MCPL. */
const PLAIN_METHODS = new Set(['initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'notifications/cancelled', 'ping']);

test('server-everything is a plain provider: no featureSets/update, unclassed tools unless overridden, direct calls work, observers see them', async () => {
  const dir = scratchDir();
  const observer = makePeer(dir, 'obs', { observer: true, policy: observePolicy() });
  const everything = officialServer('everything', 'ev', { classOverrides: { 'get-sum': ['notes'] } });
  const host = new ToolHost({ logger: silent() });
  try {
    await host.connectServer(observer.config);
    const connection = await host.connectServer(everything.config);
    assert.equal(connection.speaksMcpl, false);
    assert.ok(connection.isConnected);
    const tools = host.listTools().filter((t) => t.serverId === 'ev');
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['ev--echo', 'ev--get-sum', 'ev--trigger-long-running-operation']) assert.ok(byName.has(name), `${name} listed`);
    assert.deepEqual(byName.get('ev--echo')!.classes, []);
    assert.equal(byName.get('ev--echo')!.classSource, 'none');
    assert.deepEqual(byName.get('ev--get-sum')!.classes, ['notes']);
    assert.equal(byName.get('ev--get-sum')!.classSource, 'override');

    const inferenceId = host.beginInference({ conversationId: 'c' });
    const echo = await host.dispatch({ inferenceId, name: 'ev--echo', input: { message: 'hello' } });
    assert.equal(echo.status, 'completed');
    assert.equal(resultText(echo.result), 'Echo: hello');
    const sum = await host.dispatch({ inferenceId, name: 'ev--get-sum', input: { a: 2, b: 40 } });
    assert.equal(sum.status, 'completed');
    assert.match(resultText(sum.result), /is 42/);

    // The MCPL observer saw both calls; the plain server was never sent anything MCPL.
    await host.flush();
    await observer.waitFor((e) => e.filter((x) => x.event === 'lifecycle' && x.params.phase === 'completed').length === 2, 'two terminals');
    const sent = new Set(everything.wire.methods('out'));
    for (const method of sent) assert.ok(PLAIN_METHODS.has(method), `sent ${method} to a plain MCP server`);
    assert.ok(sent.has('tools/call'));
  } finally {
    await host.close();
  }
});

test('server-memory: the knowledge-graph tools create, relate, observe, search and read back, persisted in MEMORY_FILE_PATH', async () => {
  const dir = scratchDir();
  const file = join(dir, 'memory.jsonl');
  const memory = officialServer('memory', 'mem', { env: { MEMORY_FILE_PATH: file } });
  const host = new ToolHost({ logger: silent() });
  try {
    await host.connectServer(memory.config);
    const names = host.listTools().map((t) => t.name);
    for (const tool of ['create_entities', 'create_relations', 'add_observations', 'read_graph', 'search_nodes', 'open_nodes']) {
      assert.ok(names.includes(`mem--${tool}`), tool);
    }
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const call = async (name: string, input: Record<string, unknown>) => {
      const outcome = await host.dispatch({ inferenceId, name: `mem--${name}`, input });
      assert.equal(outcome.status, 'completed', `${name}: ${resultText(outcome.result)}`);
      assert.notEqual(outcome.result.isError, true, `${name}: ${resultText(outcome.result)}`);
      return outcome.result;
    };
    await call('create_entities', {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
        { name: 'Engine', entityType: 'machine', observations: [] },
      ],
    });
    await call('create_relations', { relations: [{ from: 'Ada', to: 'Engine', relationType: 'programmed' }] });
    await call('add_observations', { observations: [{ entityName: 'Engine', contents: ['analytical'] }] });
    const graph = (await call('read_graph', {})).structuredContent as any;
    assert.deepEqual(graph.entities.map((e: any) => e.name).sort(), ['Ada', 'Engine']);
    assert.deepEqual(graph.relations, [{ from: 'Ada', to: 'Engine', relationType: 'programmed' }]);
    const found = (await call('search_nodes', { query: 'analytical' })).structuredContent as any;
    assert.deepEqual(found.entities.map((e: any) => e.name), ['Engine']);
    const opened = (await call('open_nodes', { names: ['Ada'] })).structuredContent as any;
    assert.deepEqual(opened.entities[0].observations, ['wrote the first program']);
    assert.match(readFileSync(file, 'utf8'), /"programmed"/);
  } finally {
    await host.close();
  }
});

test('server-filesystem: direct calls read and write inside the root and are refused by the server outside it', async () => {
  const root = realpathSync(mkdtempSync(join(scratchDir(), 'root-')));
  writeFileSync(join(root, 'a.txt'), 'alpha');
  const fs = officialServer('filesystem', 'fs', { args: [root], classOverrides: { '*': ['files'] } });
  const host = new ToolHost({ logger: silent() });
  try {
    await host.connectServer(fs.config);
    assert.deepEqual(host.listTools().find((t) => t.name === 'fs--read_text_file')?.classes, ['files']);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const read = await host.dispatch({ inferenceId, name: 'fs--read_text_file', input: { path: join(root, 'a.txt') } });
    assert.equal(read.status, 'completed');
    assert.equal(resultText(read.result), 'alpha');
    const write = await host.dispatch({ inferenceId, name: 'fs--write_file', input: { path: join(root, 'b.txt'), content: 'beta' } });
    assert.equal(write.status, 'completed', resultText(write.result));
    assert.equal(readFileSync(join(root, 'b.txt'), 'utf8'), 'beta');
    const outside = await host.dispatch({ inferenceId, name: 'fs--read_text_file', input: { path: '/etc/hostname' } });
    assert.equal(outside.status, 'completed');
    assert.equal(outside.result.isError, true, 'the server refuses paths outside its root');
  } finally {
    await host.close();
  }
});

test('a server that exits mid-call: the call ends failed, the host keeps serving its other tools and servers', async () => {
  const everything = officialServer('everything', 'ev');
  const memory = officialServer('memory', 'mem', { env: { MEMORY_FILE_PATH: join(scratchDir(), 'm.jsonl') } });
  const host = new ToolHost({ logger: silent() });
  try {
    const connection = await host.connectServer(everything.config);
    await host.connectServer(memory.config);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const long = host.dispatch({ inferenceId, name: 'ev--trigger-long-running-operation', input: { duration: 30, steps: 30 } });
    await everything.wire.waitFor((f) => f.direction === 'out' && 'method' in f.message && f.message.method === 'tools/call', 'the call reached the server');
    connection.kill();
    const outcome = await long;
    assert.equal(outcome.status, 'failed');
    assert.match(resultText(outcome.result), /ev--trigger-long-running-operation/);
    // Its tools are no longer listed; calling one is refused clearly; other servers still serve.
    assert.ok(!host.listTools().some((t) => t.serverId === 'ev'), 'a dead server lists no tools');
    const refused = await host.dispatch({ inferenceId, name: 'ev--echo', input: { message: 'x' } });
    assert.equal(refused.status, 'refused');
    assert.equal(refused.refusal?.code, 'server_unavailable');
    const graph = await host.dispatch({ inferenceId, name: 'mem--read_graph', input: {} });
    assert.equal(graph.status, 'completed');
  } finally {
    await host.close();
  }
});
