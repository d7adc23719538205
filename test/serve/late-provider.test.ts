/**
 * A provider that comes up after a client connected — started late (serve retries it per its
 * `reconnect` policy), then gone and reconnected — reaches that client: serve declared
 * resources and prompts for it at `initialize` (a provider still awaited may offer them), and
 * when it connects every session gets `tools/list_changed`, `resources/list_changed` and
 * `prompts/list_changed`, after which its tools, resources and prompts are listed. The
 * provider is a real SDK server process (gateway/provider.ts); the client is the SDK's, over
 * stdio to `toolcell serve`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir } from '../helpers/peers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const PROVIDER = join(REPO_ROOT, 'test', 'serve', 'gateway', 'provider.ts');

/** Counts each list_changed kind the client hears; a wait fails when `signal` (the test's timeout) aborts. */
function listChanges(client: Client, signal: AbortSignal) {
  const counts = { tools: 0, resources: 0, prompts: 0 };
  const waiters: { kind: keyof typeof counts; until: number; resolve: () => void }[] = [];
  const bump = (kind: keyof typeof counts) => {
    counts[kind] += 1;
    for (const w of [...waiters]) if (w.kind === kind && counts[kind] >= w.until) waiters.splice(waiters.indexOf(w), 1) && w.resolve();
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => bump('tools'));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => bump('resources'));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => bump('prompts'));
  return {
    counts,
    /** Resolves once `kind` has been announced `times` more times than now. */
    more(kind: keyof typeof counts, times = 1): Promise<void> {
      return new Promise((resolve, reject) => {
        waiters.push({ kind, until: counts[kind] + times, resolve });
        signal.addEventListener('abort', () => reject(new Error(`${kind}/list_changed: ${times} expected, ${JSON.stringify(counts)} heard`)), { once: true });
      });
    },
  };
}

test('a provider that starts late, and one that reconnects, reaches a client connected before: list_changed for tools, resources and prompts, then listed', { timeout: 90_000 }, async (t) => {
  const dir = scratchDir();
  const gate = join(dir, 'gate');
  const config = join(dir, 'toolcell.json');
  const late = {
    id: 'late',
    command: process.execPath,
    args: ['--import', 'tsx', PROVIDER],
    cwd: REPO_ROOT,
    env: { GATEWAY_PROVIDER_GATE: gate },
    reconnect: { maxAttempts: 30, delayMs: 100 },
  };
  writeFileSync(config, JSON.stringify({ servers: [late], codeExecution: false }));
  const client = new Client({ name: 'early', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'ignore' }));
  try {
    const caps = client.getServerCapabilities()!;
    assert.ok(caps.resources?.listChanged && caps.prompts?.listChanged, `resources and prompts declared for the awaited provider: ${JSON.stringify(caps)}`);
    assert.deepEqual((await client.listTools()).tools, []);
    assert.deepEqual((await client.listResources()).resources, []);
    assert.deepEqual((await client.listPrompts()).prompts, []);

    const changes = listChanges(client, t.signal);
    const came = Promise.all([changes.more('tools'), changes.more('resources'), changes.more('prompts')]);
    writeFileSync(gate, 'open');
    await came;
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes('late--rich') && tools.includes('late--quit'), tools.join(', '));
    assert.deepEqual((await client.listResources()).resources.map((r) => r.uri).sort(), ['test://static', 'test://watched']);
    assert.deepEqual((await client.listPrompts()).prompts.map((p) => p.name), ['late--greet']);
    assert.deepEqual((await client.readResource({ uri: 'test://static' })).contents, [{ uri: 'test://static', mimeType: 'text/plain', text: 'static' }]);

    // Gone, then back: announced as it leaves and again as it returns (a new transport epoch).
    const cycled = Promise.all([changes.more('tools', 2), changes.more('resources', 2), changes.more('prompts', 2)]);
    assert.deepEqual((await client.callTool({ name: 'late--quit', arguments: {} })).content, [{ type: 'text', text: 'bye' }]);
    await cycled;
    assert.deepEqual((await client.listPrompts()).prompts.map((p) => p.name), ['late--greet']);
    const prompt = await client.getPrompt({ name: 'late--greet', arguments: { name: 'Ada' } });
    assert.deepEqual(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }]);
  } finally {
    await client.close();
  }
});
