/**
 * Helpers for the cross-client gateway tests: `toolcell serve --http` as a real process with a
 * given config, SDK v1 clients on it, serve's child processes (its providers, upstream sessions
 * included), and waits bounded by events with a generous deadline, never by the machine's speed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, scratchDir } from '../../helpers/peers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

export interface Serving {
  child: ChildProcess;
  url: URL;
  /** Every line serve wrote to stderr so far (its pino log). */
  log: string[];
  stop(): Promise<void>;
}

/** Starts `toolcell serve --http 127.0.0.1:0` with `config` (written to a scratch file). */
export function serveHttp(config: Record<string, unknown>, env: Record<string, string> = {}): Promise<Serving> {
  const path = join(scratchDir(), 'toolcell.json');
  writeFileSync(path, JSON.stringify(config));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--config', path, '--http', '127.0.0.1:0'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, TOOLCELL_LOG_LEVEL: 'info', ...env },
  });
  const log: string[] = [];
  return new Promise((resolve, reject) => {
    let partial = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      partial += chunk.toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        log.push(line);
        const url = /"url":"(http:[^"]+)"[^\n]*serving MCP/.exec(line)?.[1];
        if (url) {
          resolve({
            child,
            url: new URL(url),
            log,
            stop: async () => {
              if (child.exitCode !== null) return;
              const exited = new Promise((done) => child.once('exit', done));
              child.kill('SIGTERM');
              await exited;
            },
          });
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code} before serving:\n${log.join('\n')}${partial}`)));
  });
}

/** An SDK v1 client over Streamable HTTP with `capabilities`; `end` terminates its session (DELETE) and closes. */
export async function httpClient(url: URL, name: string, capabilities: ClientCapabilities = {}): Promise<{ client: Client; end: () => Promise<void> }> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  return {
    client,
    end: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** Pids of `pid`'s children now (Linux /proc). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command may hold spaces and parentheses: the fields after its last ')' are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked: not a child any more.
    }
  }
  return children;
}

/** Resolves once `check` holds, looking every `everyMs`; rejects with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean, timeoutMs = 30_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A promise resolved from outside, that rejects with `what` after `timeoutMs`. */
export function signal<T = void>(what: string, timeoutMs = 30_000): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    const timer = setTimeout(() => fail(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    timer.unref();
  });
  return { promise, resolve };
}

/** All text content of a tool result, joined. */
export function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[]).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
}
