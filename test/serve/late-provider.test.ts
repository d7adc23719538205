/**
 * A provider that comes up after a client connected — started late (serve retries it per its
 * `reconnect` policy), then gone and reconnected — reaches that client: serve declared
 * resources and prompts for it at `initialize` (a provider still awaited may offer them), and
 * when it connects every session gets `tools/list_changed`, `resources/list_changed` and
 * `prompts/list_changed`, after which its tools, resources and prompts are listed. The
 * provider is a real SDK server process (gateway/provider.ts); the client is the SDK's, over
 * stdio and over Streamable HTTP (where the announcements ride the client's GET stream).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, type ChildProcess } from 'node:child_process';
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

/**
 * serve with `config`, and an SDK client connected to it over `via`; `stop` ends both.
 * `listening` resolves once serve can reach the client outside a request: at once over stdio,
 * over HTTP when the client's GET stream was answered (a notification sent before is lost).
 */
async function serveAndConnect(config: string, via: 'stdio' | 'http'): Promise<{ client: Client; listening: Promise<void>; stop: () => Promise<void> }> {
  const client = new Client({ name: 'early', version: '1.0.0' });
  if (via === 'stdio') {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, stderr: 'ignore' }));
    return { client, listening: Promise.resolve(), stop: () => client.close() };
  }
  let opened: () => void = () => undefined;
  const listening = new Promise<void>((resolve) => (opened = resolve));
  const watchingFetch = async (url: string | URL, init?: RequestInit) => {
    const response = await fetch(url, init);
    if ((init?.method ?? 'GET') === 'GET' && response.ok) opened();
    return response;
  };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--config', config, '--http', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = async () => {
    await client.close();
    child.kill('SIGTERM');
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        const match = seen.match(/"url":"(http:[^"]+)"[^\n]*serving MCP/);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code} before serving:\n${seen}`)));
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: watchingFetch }));
  } catch (error) {
    await stop();
    throw error;
  }
  return { client, listening, stop };
}

for (const via of ['stdio', 'http'] as const) {
test(`${via}: a provider that starts late, and one that reconnects, reaches a client connected before: list_changed for tools, resources and prompts, then listed`, { timeout: 90_000 }, async (t) => {
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
    // One provider process for every client (over HTTP each client would otherwise get its own
    // upstream session, and `quit` would end only that one, not the provider serve reconnects).
    upstreamSessions: { mode: 'shared' },
  };
  writeFileSync(config, JSON.stringify({ servers: [late], codeExecution: false }));
  const { client, listening, stop } = await serveAndConnect(config, via);
  try {
    const caps = client.getServerCapabilities()!;
    assert.ok(caps.resources?.listChanged && caps.prompts?.listChanged, `resources and prompts declared for the awaited provider: ${JSON.stringify(caps)}`);
    assert.deepEqual((await client.listTools()).tools, []);
    assert.deepEqual((await client.listResources()).resources, []);
    assert.deepEqual((await client.listPrompts()).prompts, []);

    await listening;
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
    await stop();
  }
});
}
