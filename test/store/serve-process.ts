/**
 * `toolcell serve --http` as a real process for the durable-run tests, and the raw 2026-era
 * requests a client sends it (POST, one request each, no session).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/peers.ts';
import { servingUrl } from '../helpers/serve-url.ts';
import { post2026 } from '../helpers/post-2026.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

export const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'durable-test', version: '1.0.0' },
};

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  /** Everything it wrote on stderr (its log). */
  log(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Starts serve with `configPath` on a free loopback port; resolves once it serves (bounded by `timeoutMs`). */
export async function startServe(configPath: string, timeoutMs = 60_000): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', `--config=${configPath}`, '--http', '127.0.0.1:0'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await servingUrl(child, timeoutMs, (line) => (stderr += `${line}\n`));
  return {
    url,
    child,
    log: () => stderr,
    kill: async (signal) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
  };
}

let ids = 0;

/** POSTs one 2026-era request; the JSON-RPC answer (the last SSE message when streamed). */
export async function post(url: string, method: string, params: Record<string, unknown>): Promise<any> {
  const id = ++ids;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': method,
      ...(typeof params.name === 'string' ? { 'Mcp-Name': params.name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta: META, ...params } }),
  });
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const messages = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
    return messages.find((m) => m.id === id);
  }
  return JSON.parse(text);
}

/** Client capabilities declaring the tasks extension (io.modelcontextprotocol/tasks). */
export const WITH_TASKS = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } };

/**
 * POSTs one 2026-era request of a client that declares the tasks extension, from `from` (a
 * loopback source address: serve without a token tells callers apart by it). Returns the HTTP
 * status and the JSON-RPC answer.
 */
export function postFrom(url: string, method: string, params: Record<string, unknown>, from = '127.0.0.1'): Promise<{ status: number; body: any }> {
  const id = ++ids;
  const name = (params.name ?? params.taskId) as string | undefined;
  return post2026(url, { jsonrpc: '2.0', id, method, params: { _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': WITH_TASKS }, ...params } }, method, name, from);
}
