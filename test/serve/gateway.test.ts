/**
 * serve as a transparent gateway, end to end: the SDK's Client spawns `toolcell serve` over
 * stdio, which spawns SDK McpServer providers (gateway/provider.ts). Resources, templates,
 * prompts, completion, logging and subscriptions pass through; results keep every content
 * type; a provider's tool list change reaches the client; `prefixTools`, `required` and
 * parallel startup behave as configured.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { RICH_RESULT } from './gateway/rich-result.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const PROVIDER = join(REPO_ROOT, 'test', 'serve', 'gateway', 'provider.ts');

function provider(id: string, extra: Record<string, unknown> = {}, name = ''): Record<string, unknown> {
  return { id, command: process.execPath, args: ['--import', 'tsx', PROVIDER], cwd: REPO_ROOT, env: { GATEWAY_PROVIDER_NAME: name }, ...extra };
}

function writeConfig(servers: unknown[]): string {
  const path = join(scratchDir(), 'toolcell.json');
  writeFileSync(path, JSON.stringify({ servers, codeExecution: false }));
  return path;
}

async function serveClient(configPath: string): Promise<Client> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', configPath], cwd: REPO_ROOT, stderr: 'ignore' }));
  return client;
}

/** Resolves with the first `count` items `subscribe` delivers. */
function collect<T>(count: number, subscribe: (push: (item: T) => void) => void): Promise<T[]> {
  return new Promise((resolve) => {
    const items: T[] = [];
    subscribe((item) => {
      items.push(item);
      if (items.length === count) resolve(items);
    });
  });
}

test('resources, templates, prompts, completion, logging and subscriptions pass through; results keep every content type', async () => {
  const client = await serveClient(writeConfig([provider('p', { prefixTools: false })]));
  try {
    const caps = client.getServerCapabilities()!;
    assert.equal(caps.resources?.subscribe, true);
    assert.ok(caps.prompts && caps.completions && caps.logging, JSON.stringify(caps));

    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), ['test://static', 'test://watched']);
    assert.deepEqual((await client.readResource({ uri: 'test://static' })).contents, [{ uri: 'test://static', mimeType: 'text/plain', text: 'static' }]);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['test://item/{id}']);
    assert.deepEqual((await client.readResource({ uri: 'test://item/7' })).contents, [{ uri: 'test://item/7', mimeType: 'application/json', text: '{"id":"7"}' }]);
    await assert.rejects(client.readResource({ uri: 'nowhere://x' }), /not found/i);

    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ['greet']);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }]);
    const completion = await client.complete({ ref: { type: 'ref/resource', uri: 'test://item/{id}' }, argument: { name: 'id', value: 'b' } });
    assert.deepEqual(completion.completion.values, ['beta']);

    const rich = await client.callTool({ name: 'rich', arguments: {} });
    assert.deepEqual(rich.content, RICH_RESULT.content);
    assert.deepEqual(rich.structuredContent, RICH_RESULT.structuredContent);
    assert.deepEqual(rich._meta, RICH_RESULT._meta);

    await client.setLoggingLevel('debug');
    const logged = collect<LoggingMessageNotification['params']>(2, (push) =>
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => push(n.params)),
    );
    await client.callTool({ name: 'log', arguments: {} });
    assert.deepEqual((await logged).map((m) => [m.level, m.data]), [['info', 'first'], ['debug', { second: true }]]);

    await client.subscribeResource({ uri: 'test://watched' });
    const updated = collect<string>(1, (push) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => push(n.params.uri)));
    const touched = await client.callTool({ name: 'touch', arguments: {} });
    assert.match(JSON.stringify(touched.content), /subscribed: test:\/\/watched/);
    assert.deepEqual(await updated, ['test://watched']);

    const changed = collect<true>(1, (push) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => push(true)));
    assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'grown'));
    await client.callTool({ name: 'grow', arguments: {} });
    await changed;
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'grown'), 'the re-listed tool is offered after list_changed');
  } finally {
    await client.close();
  }
});

test('prefixed servers: tools and prompts carry <id>--, reads and completion reach the right provider', async () => {
  const client = await serveClient(writeConfig([provider('a', {}, 'A'), provider('b', {}, 'B')]));
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('a--richA') && names.includes('b--richB'), names.join(','));
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['a--greetA', 'b--greetB']);
    const prompt = await client.getPrompt({ name: 'b--greetB', arguments: { name: 'Bo' } });
    assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Hello BoB' });
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'a--greetA' }, argument: { name: 'name', value: '' } });
    assert.ok(Array.isArray(completion.completion.values));
  } finally {
    await client.close();
  }
});

/** Runs serve with `configPath` until it exits; its exit code and stderr. */
function runServe(configPath: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--config', configPath], { cwd: REPO_ROOT, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // serve exits on its own here; its stdin pipe would otherwise keep this test process alive.
    child.on('exit', (code) => {
      child.stdin.destroy();
      resolve({ code, stderr });
    });
  });
}

test('two unprefixed servers offering one tool name: serve refuses to start, naming both', async () => {
  const { code, stderr } = await runServe(writeConfig([provider('one', { prefixTools: false }), provider('two', { prefixTools: false })]));
  assert.notEqual(code, 0);
  // Servers connect in parallel, so either may be the one found first.
  assert.match(stderr, /rich: offered by server "(one|two)" and server "(one|two)"/);
  assert.match(stderr, /server "one"/);
  assert.match(stderr, /server "two"/);
});

test('a required server that fails stops serve; one that is not required is reported and serve serves the rest', async () => {
  const broken = { id: 'broken', command: join(scratchDir(), 'no-such-server') };
  const required = await runServe(writeConfig([provider('p'), { ...broken, required: true }]));
  assert.notEqual(required.code, 0);
  assert.match(required.stderr, /server broken failed to start/);

  const client = await serveClient(writeConfig([provider('p'), broken]));
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('p--rich'), names.join(','));
  } finally {
    await client.close();
  }
});
