/**
 * The sandboxes `bench:peers` compares, each behind one small interface: open it, run a script
 * in a named conversation, close it. Every subject gets the same two tools, `noop` (answers
 * `{ ok: true }`) and `big` (answers the 1 MB as JSON text, which the subject's side parses:
 * toolcell's host parses a tool's lone JSON text block itself; each peer's tool function parses
 * it, the step a peer's embedder would write), made available the way its own documentation
 * says to:
 * - `toolcell`: the sandbox alone, `JsRuntime` with two bindings (a reference, not a target);
 * - `toolcell-host`: the public path, a `ToolHost` with two built-ins and `code_execution`
 *   (`registerCodeExecution`), each run a `code_execution` dispatch — the headline subject;
 * - `toolcell-host-4obs`: the same with 4 MCPL observer processes granted observe + inputs that
 *   receive every event (no rate budget, queues that never fill: a drop fails the run), each
 *   parsing every message without the MCP SDK (fixtures/lean-observer.mjs);
 * - `toolcell-host-4obs-sdk`: the same with observers built on the MCP SDK (fixtures/peer.mjs),
 *   whose per-message validation is the observers' own CPU (reported, no target);
 * - `toolcell-host-4obs-default`: the SDK observers under the default budget, reporting what
 *   they dropped;
 * - `pi-codemode`: `CodemodeSandbox` (a QuickJS worker per execution);
 * - `ai-sdk-code-mode`: `@ai-sdk/code-mode`'s `experimental_runCodeMode` with AI SDK tools;
 * - `utcp-code-mode`: `CodeModeUtcpClient.callToolChain` (isolated-vm) with the tools served by an
 *   in-process UTCP communication protocol registered through the SDK's plugin API.
 *
 * For the observed subjects a run ends when every observer has read every event the run made
 * (`settleObservers`), on the clock: delivery is part of the cost of being observed.
 *
 * toolcell is loaded from its build (dist/, as the package ships it; bench/peers/built.ts makes
 * it and runs this file as plain JavaScript from .bench/peers/, the same depth below the root).
 *
 * toolcell's engine is chosen by `BENCH_ENGINE`: unset or `default` passes no engine option, so
 * the bench measures whatever the library's default is; `quickjs`, `quickjs-threads` or `v8`
 * choose one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachObservers, settleObservers } from './observers.ts';
import { PAR_CALLS, SEQ_CALLS, workload, toolsDialect, utcpDialect, type CallSyntax, type Payload, type Workload, type WorkloadName } from './workloads.ts';

export const SUBJECTS = ['toolcell', 'toolcell-host', 'toolcell-host-4obs', 'toolcell-host-4obs-sdk', 'toolcell-host-4obs-default', 'pi-codemode', 'ai-sdk-code-mode', 'utcp-code-mode'] as const;
export type SubjectName = (typeof SUBJECTS)[number];

export interface Subject {
  /** Runs `name`'s script in `conversation` and checks what it returned; `once`: the conversation ends after it. */
  run(name: WorkloadName, conversation: string, once?: boolean): Promise<void>;
  /** Calls the observers dropped so far, summed over observers (observed subjects only). */
  dropped?(): number;
  close(): Promise<void>;
}

/** Starts the sandbox itself (what an embedder does after its imports). */
export type Opener = () => Promise<Subject>;

export type BenchEngine = 'default' | 'quickjs' | 'quickjs-threads' | 'v8';

export function benchEngine(): BenchEngine {
  const value = process.env.BENCH_ENGINE ?? 'default';
  if (!['default', 'quickjs', 'quickjs-threads', 'v8'].includes(value)) {
    throw new Error(`BENCH_ENGINE must be default, quickjs, quickjs-threads or v8, not ${JSON.stringify(value)}`);
  }
  return value as BenchEngine;
}

const LIMIT_MS = 120_000;

/** A module of toolcell's build, by its path under dist/. */
const built = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;

/** The checked workloads of one dialect, each built on first use (a cold sample builds only `return 1`). */
function workloads(call: CallSyntax, payload: Payload): (name: WorkloadName) => Workload {
  const made = new Map<WorkloadName, Workload>();
  return (name) => {
    let w = made.get(name);
    if (!w) made.set(name, (w = workload(name, call, payload)));
    return w;
  };
}

function check(subject: string, name: WorkloadName, w: Workload, got: unknown): void {
  const wrong = w.check(got);
  if (wrong !== undefined) throw new Error(`${subject} ${name}: ${wrong}`);
}

async function toolcellSandbox(payload: Payload): Promise<Opener> {
  const { JsRuntime } = (await import(built('runtime/js/index.js'))) as typeof import('../../src/runtime/js/index.ts');
  const engine = benchEngine();
  const scripts = workloads(toolsDialect, payload);
  return async () => {
    const runtime = new JsRuntime({
      ...(engine === 'default' ? {} : { engine: engine === 'v8' ? 'v8' : 'quickjs', quickjsThreads: engine === 'quickjs-threads' }),
      limits: { maxCalls: 1_000_000, maxInFlight: 10_000, timeoutMs: LIMIT_MS },
    });
    const tools = [
      { name: 'noop', invoke: async () => ({ ok: true }) },
      { name: 'big', invoke: async () => JSON.parse(payload.text) as unknown },
    ];
    return {
      async run(name, conversation, once) {
        const w = scripts(name);
        const result = await runtime.execute(w.script, { tools, conversation, timeoutMs: LIMIT_MS });
        if (!result.ok) throw new Error(`toolcell ${name}: ${result.error.kind}: ${result.error.message}`);
        check('toolcell', name, w, result.value);
        if (once) runtime.endConversation(conversation);
      },
      close: () => runtime.close(),
    };
  };
}

/** The observers of an observed subject: none, 4 receiving every event (without or on the SDK), or 4 under the default budget. */
type Observed = 'none' | 'every' | 'every-sdk' | 'default';

/** Queue bounds no 10,000-call run can reach, and no rate budget: every event is delivered. */
const EVERY_EVENT = { maxObservedCallsPerSecond: Infinity, maxQueuedNotifications: 100_000_000, maxQueuedBytes: 2 ** 31 };

async function toolcellHost(payload: Payload, observed: Observed, label: SubjectName): Promise<Opener> {
  const { ToolHost, registerCodeExecution } = (await import(built('index.js'))) as typeof import('../../src/index.ts');
  const engine = benchEngine();
  const scripts = workloads(toolsDialect, payload);
  return async () => {
    // The host is the embedder's setup, on the cold clock like the sandbox.
    const host = new ToolHost();
    const schema = { type: 'object' as const, properties: { i: { type: 'integer' as const } } };
    // `shell` so that observers granted inputs for that class receive every call's input.
    host.registerTool({ name: 'noop', description: 'Does nothing', inputSchema: schema, classes: ['shell'], handler: async () => ({ content: [], structuredContent: { ok: true } }) });
    host.registerTool({
      name: 'big',
      description: 'About 1 MB of records, as JSON text',
      inputSchema: { type: 'object' },
      classes: ['shell'],
      handler: async () => ({ content: [{ type: 'text', text: payload.text }] }),
    });
    const dir = observed === 'none' ? undefined : mkdtempSync(join(tmpdir(), 'toolcell-bench-peers-'));
    const connections = dir === undefined ? [] : await attachObservers(host, dir, 4, observed === 'default' ? {} : EVERY_EVENT, observed === 'every' ? 'lean' : 'sdk');
    const codeExecution = registerCodeExecution(host, {
      ...(engine === 'default' ? {} : { engine: engine === 'v8' ? 'v8' : 'quickjs', jsThreads: engine === 'quickjs-threads' }),
      languages: ['javascript'],
      maxTimeLimitMs: LIMIT_MS,
      maxCallsPerExecution: Infinity,
      // The 1 MB comes back through the result: a user returning it raises the 64 KiB default.
      maxResultChars: 4 * 2 ** 20,
    });
    const streams = new Map<string, ReturnType<typeof host.openStream>>();
    /** Lifecycle events each lean observer had read at the last settle. */
    const eventsRead: number[] = [];
    const dropped = () => connections.reduce((n, c) => n + c.queue.stats.droppedCalls, 0);
    return {
      async run(name, conversation, once) {
        let stream = streams.get(conversation);
        if (!stream) streams.set(conversation, (stream = host.openStream(conversation)));
        const w = scripts(name);
        const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code: w.script, time_limit_ms: LIMIT_MS } });
        const envelope = outcome.result.structuredContent as { ok?: boolean; value?: unknown } | undefined;
        if (!envelope?.ok) throw new Error(`${label} ${name}: ${JSON.stringify(outcome.result).slice(0, 400)}`);
        check(label, name, w, envelope.value);
        if (once) {
          // Ends the conversation itself (its session and VM go), not only its stream.
          stream.end();
          streams.delete(conversation);
          await host.endConversation(conversation);
        }
        if (connections.length > 0) {
          const read = await settleObservers(host, connections);
          // An observer whose filter never came into force would read nothing, and the subject
          // would time the delivery of nothing: each must have read the inner calls' events.
          read.forEach((events, i) => {
            if (events === undefined) return;
            const before = eventsRead[i] ?? 0;
            eventsRead[i] = events;
            if ((name === 'seq' || name === 'par') && events - before < (name === 'seq' ? SEQ_CALLS : PAR_CALLS)) throw new Error(`${label} ${name}: observer ${i} read ${events - before} lifecycle events, fewer than the run's calls`);
          });
          if (observed !== 'default' && dropped() > 0) throw new Error(`${label}: observers dropped ${dropped()} calls where every event must be delivered`);
        }
      },
      ...(connections.length > 0 ? { dropped } : {}),
      async close() {
        for (const stream of streams.values()) stream.end();
        await codeExecution.close();
        await host.close();
        if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

async function piCodemode(payload: Payload): Promise<Opener> {
  const { CodemodeSandbox } = await import('@earendil-works/pi-codemode');
  const scripts = workloads(toolsDialect, payload);
  return async () => {
    const sandbox = new CodemodeSandbox({
      timeoutMs: LIMIT_MS,
      tools: [
        { name: 'noop', execute: async () => ({ ok: true }) },
        { name: 'big', execute: async () => JSON.parse(payload.text) as unknown },
      ],
    });
    return {
      // pi-codemode has no conversations: every execute() gets its own VM.
      async run(name) {
        const w = scripts(name);
        const result = await sandbox.execute(w.script);
        if (!result.ok) throw new Error(`pi-codemode ${name}: ${result.error.kind}: ${result.error.message}`);
        check('pi-codemode', name, w, result.value);
      },
      close: () => sandbox.close(),
    };
  };
}

async function aiSdkCodeMode(payload: Payload): Promise<Opener> {
  const [{ experimental_runCodeMode: runCodeMode }, { tool, jsonSchema }] = await Promise.all([import('@ai-sdk/code-mode'), import('ai')]);
  const tools = {
    noop: tool({ description: 'Does nothing', inputSchema: jsonSchema({ type: 'object' }), execute: async () => ({ ok: true }) }),
    big: tool({ description: 'About 1 MB of records', inputSchema: jsonSchema({ type: 'object' }), execute: async () => JSON.parse(payload.text) as unknown }),
  };
  // Its defaults allow 256 tool calls and 32 in flight per run, 1 MB of result; raised to what
  // the workloads need, as a user running them would.
  const executionPolicy = {
    timeoutMs: LIMIT_MS,
    maxBridgeRequests: 1_000_000,
    maxInFlightBridgeRequests: 10_000,
    maxToolOutputBytes: 16 * 2 ** 20,
    maxResultBytes: 16 * 2 ** 20,
  };
  const scripts = workloads(toolsDialect, payload);
  return async () => ({
    // Stateless: every run is a fresh sandbox.
    async run(name) {
      const w = scripts(name);
      const value = await runCodeMode({ js: w.script, tools, options: { executionPolicy } });
      check('ai-sdk-code-mode', name, w, value);
    },
    close: async () => {},
  });
}

async function utcpCodeMode(payload: Payload): Promise<Opener> {
  const [{ CodeModeUtcpClient }, sdk] = await Promise.all([import('@utcp/code-mode'), import('@utcp/sdk')]);
  const { CallTemplateSerializer, CommunicationProtocol, Serializer } = sdk;
  // An in-process UTCP protocol: its manual lists `noop` and `big`, and its calls answer at once.
  class BenchTemplate extends Serializer<Record<string, unknown>> {
    toDict(obj: Record<string, unknown>) {
      return { ...obj };
    }
    validateDict(obj: Record<string, unknown>) {
      if (obj.call_template_type !== 'bench') throw new Error('not a bench call template');
      return obj as { call_template_type: string };
    }
  }
  class BenchProtocol extends CommunicationProtocol {
    async registerManual(_caller: unknown, template: { name?: string; call_template_type: string }) {
      const tool = (name: string, description: string) => ({
        name,
        description,
        inputs: { type: 'object' as const },
        outputs: { type: 'object' as const },
        tags: [] as string[],
        tool_call_template: { name: template.name ?? 'bench', call_template_type: 'bench' },
      });
      return {
        manualCallTemplate: template,
        manual: { utcp_version: '1.0.0', manual_version: '1.0.0', tools: [tool('noop', 'Does nothing'), tool('big', 'About 1 MB of records')] },
        success: true,
        errors: [],
      };
    }
    async deregisterManual() {}
    async callTool(_caller: unknown, toolName: string) {
      return toolName.endsWith('.big') ? (JSON.parse(payload.text) as unknown) : { ok: true };
    }
    async *callToolStreaming(caller: unknown, toolName: string, args: Record<string, unknown>, template: unknown) {
      yield await this.callTool(caller, toolName);
    }
    async close() {}
  }
  CallTemplateSerializer.registerCallTemplate('bench', new BenchTemplate() as never, true);
  (CommunicationProtocol.communicationProtocols as Record<string, unknown>).bench = new BenchProtocol();
  const scripts = workloads(utcpDialect, payload);
  return async () => {
    const client = await CodeModeUtcpClient.create(process.cwd(), null as never);
    await client.registerManual({ name: 'bench', call_template_type: 'bench' } as never);
    return {
      // Stateless: every callToolChain is a fresh isolate.
      async run(name) {
        const w = scripts(name);
        const { result, logs } = await client.callToolChain(w.script, LIMIT_MS, 256);
        if (result === null) throw new Error(`utcp-code-mode ${name}: ${logs.join(' | ').slice(0, 400)}`);
        check('utcp-code-mode', name, w, result);
      },
      close: () => client.close(),
    };
  };
}

/**
 * Loads `name`'s modules and returns the opener, which sets up what the embedder sets up (a
 * host, its tools, observers) and the sandbox. A cold sample times both from process start.
 */
export function prepareSubject(name: SubjectName, payload: Payload): Promise<Opener> {
  switch (name) {
    case 'toolcell':
      return toolcellSandbox(payload);
    case 'toolcell-host':
      return toolcellHost(payload, 'none', name);
    case 'toolcell-host-4obs':
      return toolcellHost(payload, 'every', name);
    case 'toolcell-host-4obs-sdk':
      return toolcellHost(payload, 'every-sdk', name);
    case 'toolcell-host-4obs-default':
      return toolcellHost(payload, 'default', name);
    case 'pi-codemode':
      return piCodemode(payload);
    case 'ai-sdk-code-mode':
      return aiSdkCodeMode(payload);
    case 'utcp-code-mode':
      return utcpCodeMode(payload);
  }
}
