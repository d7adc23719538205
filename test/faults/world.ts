/**
 * One fault world: a real ToolHost with built-ins that are fast, slow, erroring, throwing and
 * hanging; a real fixture provider process (restarted after it is killed); five real observer
 * processes with different grants and filters — two healthy, one slowed (stopped and continued
 * in short cycles), one stalled (stopped for seconds, with a small queue) and one doomed (killed
 * mid-run); and `code_execution` in both languages. Each observer's expected view is written
 * here as a plain rule of its own, independent of the host's decision code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import type { WhenBusy } from '../../src/code-execution/conversation-lock.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { makePeer, type Peer } from '../helpers/peers.ts';

/** What an observer should hear about one opened call: nothing, metadata only, or the full input. */
export type Expectation = null | 'metadata' | 'input';

export interface ObserverSpec {
  id: string;
  role: 'healthy' | 'slowed' | 'stalled' | 'doomed';
  peer: Peer;
  expect(call: HostLifecycleEvent): Expectation;
}

export interface WorldOptions {
  whenBusy: WhenBusy;
  /** Host safety timeout of model calls that give none (code_execution's included). */
  callTimeoutMs: number;
  /** Inner calls' timeout + grace. */
  innerCallTimeoutMs: number;
  innerCallGraceMs: number;
  maxTimeLimitMs: number;
  /** First back-off before the provider is restarted after it died. */
  reconnectDelayMs: number;
}

export interface World {
  host: ToolHost;
  codeExecution: CodeExecution;
  observers: ObserverSpec[];
  provider: Peer;
  dir: string;
  options: WorldOptions;
  /** Pid of a server process now, if it is running. */
  pid(id: string): number | undefined;
  close(): Promise<void>;
  /** Deletes the world's scratch files (observer logs included): after the checks. */
  removeFiles(): void;
}

const OBSERVE = ['toolLifecycle.observe'];
const FULL = ['toolLifecycle.observe', 'toolLifecycle.inputs'];
const has = (call: HostLifecycleEvent, cls: string) => (call.class as readonly string[]).includes(cls);

/** Waits for `ms`, or not at all when the tool's call is aborted and it honours that. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

function registerBuiltins(host: ToolHost): void {
  const schema = { type: 'object' };
  host.registerTool({ name: 'b_fast', description: 'Answers at once', inputSchema: schema, classes: ['shell'], handler: async (args) => textResult(JSON.stringify(args)) });
  host.registerTool({
    name: 'b_slow',
    description: 'Answers after ms milliseconds',
    inputSchema: schema,
    classes: ['web'],
    handler: async (args, ctx) => {
      await pause(Number(args.ms ?? 10), args.honor === true ? ctx.signal : undefined);
      return textResult('slow');
    },
  });
  host.registerTool({ name: 'b_error', description: 'Returns an error result', inputSchema: schema, classes: ['files'], handler: async () => ({ content: [{ type: 'text', text: 'no such file' }], isError: true }) });
  host.registerTool({
    name: 'b_throw',
    description: 'Throws, synchronously or not',
    inputSchema: schema,
    classes: ['comms'],
    handler: ((args: Record<string, unknown>) => {
      if (args.sync === true) throw new Error('thrown synchronously');
      return Promise.reject(new Error('rejected'));
    }) as never,
  });
  host.registerTool({
    name: 'b_hang',
    description: 'Never answers (unless aborted, when it honours its signal)',
    inputSchema: schema,
    classes: ['memory'],
    handler: (args, ctx) =>
      new Promise((resolve) => {
        if (args.honor === true) ctx.signal.addEventListener('abort', () => resolve(textResult('stopped')), { once: true });
      }),
  });
}

export async function makeWorld(options: WorldOptions): Promise<World> {
  // Removed by close(): a run makes many worlds, and a process exit hook per world would pile up.
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-faults-'));
  const host = new ToolHost({ logger: pino({ level: 'silent' }), callTimeoutMs: options.callTimeoutMs });
  registerBuiltins(host);
  const provider = makePeer(dir, 'p', {
    tools: [
      { name: 'run', classes: ['shell'], description: 'Run (delay_ms, error, hold_file, crash)' },
      { name: 'fetch', classes: ['web'], description: 'Fetch' },
      { name: 'send', classes: ['comms'], description: 'Send' },
    ],
    log: false,
  });
  const observers: ObserverSpec[] = [
    {
      id: 'all',
      role: 'healthy',
      peer: makePeer(dir, 'all', { observer: true, policy: { enabledCapabilities: OBSERVE } }),
      expect: () => 'metadata',
    },
    {
      id: 'shellweb',
      role: 'healthy',
      peer: makePeer(dir, 'shellweb', {
        observer: true,
        filter: { rules: [{ match: { class: 'shell' }, input: true }, { match: { class: 'web' } }] },
        policy: { enabledCapabilities: FULL, toolLifecycle: { inputs: { classes: ['shell', 'web'] } } },
      }),
      expect: (c) => (has(c, 'shell') ? 'input' : has(c, 'web') ? 'metadata' : null),
    },
    {
      id: 'slowed',
      role: 'slowed',
      peer: makePeer(dir, 'slowed', { observer: true, filter: { rules: [{ match: { tool: 'p--*' } }, { match: { tool: 'code_execution' } }] }, policy: { enabledCapabilities: OBSERVE } }),
      expect: (c) => (c.tool.startsWith('p--') || c.tool === 'code_execution' ? 'metadata' : null),
    },
    {
      id: 'stalled',
      role: 'stalled',
      peer: makePeer(dir, 'stalled', {
        observer: true,
        filter: { rules: [{ match: { class: 'comms' }, report: false }, { match: {}, input: true }] },
        policy: { enabledCapabilities: FULL, toolLifecycle: { inputs: { tools: ['*'] } } },
      }),
      expect: (c) => (has(c, 'comms') ? null : 'input'),
    },
    {
      id: 'doomed',
      role: 'doomed',
      peer: makePeer(dir, 'doomed', { observer: true, policy: { enabledCapabilities: OBSERVE } }),
      expect: () => 'metadata',
    },
  ];
  const limits: Record<ObserverSpec['role'], object> = {
    healthy: { maxObservedCallsPerSecond: Infinity },
    slowed: { maxObservedCallsPerSecond: Infinity },
    // Small bounds, so that a stall drops calls within seconds: by count, by bytes, by rate.
    stalled: { maxQueuedNotifications: 60, maxQueuedBytes: 16_000, maxObservedCallsPerSecond: 30 },
    doomed: { maxObservedCallsPerSecond: Infinity },
  };
  await host.connectServer({ ...provider.config, reconnect: { maxAttempts: 50, delayMs: options.reconnectDelayMs } });
  for (const o of observers) await host.connectServer({ ...o.peer.config, ...limits[o.role] });
  for (const o of observers) {
    if (o.id === 'shellweb' || o.id === 'slowed' || o.id === 'stalled') {
      await o.peer.waitFor((e) => e.some((x) => x.event === 'observe-response'), `${o.id}: filter in force`, 30_000);
    }
  }
  const codeExecution = registerCodeExecution(host, {
    whenBusy: options.whenBusy,
    busyWaitMs: 3_000,
    maxTimeLimitMs: options.maxTimeLimitMs,
    innerCallTimeoutMs: options.innerCallTimeoutMs,
    innerCallGraceMs: options.innerCallGraceMs,
    python: { interruptGraceMs: 100, killGraceMs: 400 },
  });
  return {
    host,
    codeExecution,
    observers,
    provider,
    dir,
    options,
    pid: (id) => host.server(id)?.pid,
    async close() {
      await codeExecution.close();
      await host.close();
    },
    removeFiles() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
