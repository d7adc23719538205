/**
 * Test helpers for fixture peers: each peer is a real process (fixtures/peer.mjs) configured
 * through a JSON file, logging to JSONL. Tests wait on the log for the event they assert.
 */
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { readJsonLines } from './json-lines.ts';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerConfig } from '../../src/mcpl/config.ts';
import type { OperatorPolicy } from '../../src/lifecycle/grants.ts';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const PEER = join(REPO_ROOT, 'fixtures', 'peer.mjs');

export interface PeerToolSpec {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  classes?: unknown;
  meta?: Record<string, unknown>;
  result?: string;
}

export interface PeerOptions {
  observer?: boolean;
  featureSets?: Record<string, unknown>;
  filter?: unknown;
  tools?: PeerToolSpec[];
  calls?: unknown[];
  stall?: boolean;
  /** Stop (and never answer) a call on `notifications/cancelled`, as the SDK does by default. */
  honourCancel?: boolean;
  /** Advertise no `experimental.mcpl`: a plain MCP server. */
  plain?: boolean;
  policy?: OperatorPolicy;
  log?: boolean;
}

export interface PeerEvent {
  event: string;
  params?: any;
  key?: string;
  response?: any;
  t?: number;
}

export interface Peer {
  config: ServerConfig;
  logPath: string;
  events(): PeerEvent[];
  lifecycle(): any[];
  waitFor(predicate: (events: PeerEvent[]) => boolean, label: string, timeoutMs?: number): Promise<PeerEvent[]>;
}

/** A scratch directory removed when the process exits. */
export function scratchDir(prefix = 'toolcell-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function makePeer(dir: string, id: string, options: PeerOptions = {}): Peer {
  const logPath = join(dir, `${id}.jsonl`);
  const configPath = join(dir, `${id}.json`);
  writeFileSync(
    configPath,
    JSON.stringify({
      log: options.log === false ? undefined : logPath,
      observer: options.observer ?? false,
      featureSets: options.featureSets,
      filter: options.filter,
      tools: options.tools ?? [],
      calls: options.calls,
      stall: options.stall,
      honourCancel: options.honourCancel,
      plain: options.plain,
    }),
  );
  const events = (): PeerEvent[] => readJsonLines<PeerEvent>(logPath);
  return {
    config: {
      id,
      command: process.execPath,
      args: [PEER],
      env: { TOOLCELL_PEER_CONFIG: configPath },
      ...(options.policy ? { policy: options.policy } : {}),
    },
    logPath,
    events,
    lifecycle: () => events().filter((e) => e.event === 'lifecycle').map((e) => e.params),
    waitFor: (predicate, label, timeoutMs = 10_000) => waitUntil(() => {
      const all = events();
      return predicate(all) ? all : undefined;
    }, label, timeoutMs),
  };
}

/** Polls `probe` (with a short backoff) until it returns a value; fails with `label` on timeout. */
/** Whether a process with `pid` exists (a process we may not signal still exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function waitUntil<T>(probe: () => T | undefined | Promise<T | undefined>, label: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 50);
  }
}

/** An observer policy granting observe (and inputs narrowed to `inputClasses`, when given). */
export function observePolicy(inputClasses?: string[]): OperatorPolicy {
  return inputClasses
    ? ({
        enabledCapabilities: ['tools', 'toolLifecycle.observe', 'toolLifecycle.inputs'],
        toolLifecycle: { inputs: { classes: inputClasses } },
      } as OperatorPolicy)
    : { enabledCapabilities: ['tools', 'toolLifecycle.observe'] };
}
