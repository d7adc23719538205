/**
 * The sandboxes `bench:peers` compares, each behind one small interface: open it (the cold
 * start is timed from here), run a script in a named conversation, close it. Every subject gets
 * the same two tools, `noop` (answers `{ ok: true }`) and `big` (answers the 1 MB object), made
 * available the way its own documentation says to:
 * - `toolcell`: the sandbox alone, `JsRuntime` with two bindings;
 * - `toolcell-host`: the full host path, a `ToolHost` with two built-ins and `code_execution`
 *   (`registerCodeExecution`), each run a `code_execution` dispatch;
 * - `toolcell-host-4obs`: the same with 4 MCPL observer processes granted observe + inputs;
 * - `pi-codemode`: `CodemodeSandbox` (a QuickJS worker per execution);
 * - `ai-sdk-code-mode`: `@ai-sdk/code-mode`'s `experimental_runCodeMode` with AI SDK tools;
 * - `utcp-code-mode`: `CodeModeUtcpClient.callToolChain` (isolated-vm) with the tools served by an
 *   in-process UTCP communication protocol registered through the SDK's plugin API.
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
import { workload, toolsDialect, utcpDialect, type CallSyntax, type Workload, type WorkloadName } from './workloads.ts';

export const SUBJECTS = ['toolcell', 'toolcell-host', 'toolcell-host-4obs', 'pi-codemode', 'ai-sdk-code-mode', 'utcp-code-mode'] as const;
export type SubjectName = (typeof SUBJECTS)[number];

export interface Subject {
  /** Runs `name`'s script in `conversation` and checks what it returned. */
  run(name: WorkloadName, conversation: string): Promise<void>;
  /** Untimed, after each measured run: waits out work the run left behind (observers reading). */
  settle?(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the sandbox itself (timed as the cold start). */
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

/**
 * The checked workloads of one dialect, built once (the CPU workload's answer costs a loop of
 * ~45 ms): while the subject is prepared, never inside an opener, whose time is the cold start.
 */
function workloads(call: CallSyntax, bigItems: number): Map<WorkloadName, Workload> {
  const names: WorkloadName[] = ['return1', 'seq', 'par', 'payload', 'cpu', 'conversation'];
  return new Map(names.map((n) => [n, workload(n, call, bigItems)]));
}

function check(subject: string, name: WorkloadName, expected: unknown, got: unknown): void {
  if (got !== expected) throw new Error(`${subject} ${name}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)?.slice(0, 300)}`);
}

async function toolcellSandbox(big: { items: unknown[] }): Promise<Opener> {
  const { JsRuntime } = (await import(built('runtime/js/index.js'))) as typeof import('../../src/runtime/js/index.ts');
  const engine = benchEngine();
  const scripts = workloads(toolsDialect, big.items.length);
  return async () => {
    const runtime = new JsRuntime({
      ...(engine === 'default' ? {} : { engine: engine === 'v8' ? 'v8' : 'quickjs', quickjsThreads: engine === 'quickjs-threads' }),
      limits: { maxCalls: 1_000_000, maxInFlight: 10_000, timeoutMs: LIMIT_MS },
    });
    const tools = [
      { name: 'noop', invoke: async () => ({ ok: true }) },
      { name: 'big', invoke: async () => big },
    ];
    return {
      async run(name, conversation) {
        const w = scripts.get(name)!;
        const result = await runtime.execute(w.script, { tools, conversation, timeoutMs: LIMIT_MS });
        if (!result.ok) throw new Error(`toolcell ${name}: ${result.error.kind}: ${result.error.message}`);
        check('toolcell', name, w.expected, result.value);
      },
      close: () => runtime.close(),
    };
  };
}

async function toolcellHost(big: { items: unknown[] }, observers: number): Promise<Opener> {
  const [{ ToolHost, registerCodeExecution }, { default: pino }] = await Promise.all([
    import(built('index.js')) as Promise<typeof import('../../src/index.ts')>,
    import('pino'),
  ]);
  const engine = benchEngine();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const schema = { type: 'object' as const, properties: { i: { type: 'integer' as const } } };
  // `shell` so that observers granted inputs for that class receive every call's input.
  host.registerTool({ name: 'noop', description: 'Does nothing', inputSchema: schema, classes: ['shell'], handler: async () => ({ content: [], structuredContent: { ok: true } }) });
  host.registerTool({ name: 'big', description: 'About 1 MB of records', inputSchema: { type: 'object' }, classes: ['shell'], handler: async () => ({ content: [], structuredContent: big }) });
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-bench-peers-'));
  const connections = observers > 0 ? await attachObservers(host, dir, observers) : [];
  const scripts = workloads(toolsDialect, big.items.length);
  return async () => {
    const codeExecution = registerCodeExecution(host, {
      ...(engine === 'default' ? {} : { engine: engine === 'v8' ? 'v8' : 'quickjs', jsThreads: engine === 'quickjs-threads' }),
      languages: ['javascript'],
      maxTimeLimitMs: LIMIT_MS,
      maxCallsPerExecution: Infinity,
    });
    const streams = new Map<string, ReturnType<typeof host.openStream>>();
    const label = observers > 0 ? `toolcell-host-${observers}obs` : 'toolcell-host';
    return {
      async run(name, conversation) {
        let stream = streams.get(conversation);
        if (!stream) streams.set(conversation, (stream = host.openStream(conversation)));
        const w = scripts.get(name)!;
        const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code: w.script, time_limit_ms: LIMIT_MS } });
        const envelope = outcome.result.structuredContent as { ok?: boolean; value?: unknown } | undefined;
        if (!envelope?.ok) throw new Error(`${label} ${name}: ${JSON.stringify(outcome.result).slice(0, 400)}`);
        check(label, name, w.expected, envelope.value);
      },
      settle: () => settleObservers(host, connections),
      async close() {
        for (const stream of streams.values()) stream.end();
        await codeExecution.close();
        await host.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

async function piCodemode(big: { items: unknown[] }): Promise<Opener> {
  const { CodemodeSandbox } = await import('@earendil-works/pi-codemode');
  const scripts = workloads(toolsDialect, big.items.length);
  return async () => {
    const sandbox = new CodemodeSandbox({
      timeoutMs: LIMIT_MS,
      tools: [
        { name: 'noop', execute: async () => ({ ok: true }) },
        { name: 'big', execute: async () => big },
      ],
    });
    return {
      // pi-codemode has no conversations: every execute() gets its own VM.
      async run(name) {
        const w = scripts.get(name)!;
        const result = await sandbox.execute(w.script);
        if (!result.ok) throw new Error(`pi-codemode ${name}: ${result.error.kind}: ${result.error.message}`);
        check('pi-codemode', name, w.expected, result.value);
      },
      close: () => sandbox.close(),
    };
  };
}

async function aiSdkCodeMode(big: { items: unknown[] }): Promise<Opener> {
  const [{ experimental_runCodeMode: runCodeMode }, { tool, jsonSchema }] = await Promise.all([import('@ai-sdk/code-mode'), import('ai')]);
  const tools = {
    noop: tool({ description: 'Does nothing', inputSchema: jsonSchema({ type: 'object' }), execute: async () => ({ ok: true }) }),
    big: tool({ description: 'About 1 MB of records', inputSchema: jsonSchema({ type: 'object' }), execute: async () => big }),
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
  const scripts = workloads(toolsDialect, big.items.length);
  return async () => ({
    // Stateless: every run is a fresh sandbox.
    async run(name) {
      const w = scripts.get(name)!;
      const value = await runCodeMode({ js: w.script, tools, options: { executionPolicy } });
      check('ai-sdk-code-mode', name, w.expected, value);
    },
    close: async () => {},
  });
}

async function utcpCodeMode(big: { items: unknown[] }): Promise<Opener> {
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
      return toolName.endsWith('.big') ? big : { ok: true };
    }
    async *callToolStreaming(caller: unknown, toolName: string, args: Record<string, unknown>, template: unknown) {
      yield await this.callTool(caller, toolName);
    }
    async close() {}
  }
  CallTemplateSerializer.registerCallTemplate('bench', new BenchTemplate() as never, true);
  (CommunicationProtocol.communicationProtocols as Record<string, unknown>).bench = new BenchProtocol();
  const scripts = workloads(utcpDialect, big.items.length);
  return async () => {
    const client = await CodeModeUtcpClient.create(process.cwd(), null as never);
    await client.registerManual({ name: 'bench', call_template_type: 'bench' } as never);
    return {
      // Stateless: every callToolChain is a fresh isolate.
      async run(name) {
        const w = scripts.get(name)!;
        const { result, logs } = await client.callToolChain(w.script, LIMIT_MS, 256);
        if (result === null) throw new Error(`utcp-code-mode ${name}: ${logs.join(' | ').slice(0, 400)}`);
        check('utcp-code-mode', name, w.expected, result);
      },
      close: () => client.close(),
    };
  };
}

/**
 * Loads `name`'s modules and whatever the embedder sets up before the sandbox (a host, its
 * tools, observers) and returns the opener: what the opener takes plus the first run is the
 * subject's cold start (`registerCodeExecution` → first result; pi-codemode's worker start).
 */
export function prepareSubject(name: SubjectName, big: { items: unknown[] }): Promise<Opener> {
  switch (name) {
    case 'toolcell':
      return toolcellSandbox(big);
    case 'toolcell-host':
      return toolcellHost(big, 0);
    case 'toolcell-host-4obs':
      return toolcellHost(big, 4);
    case 'pi-codemode':
      return piCodemode(big);
    case 'ai-sdk-code-mode':
      return aiSdkCodeMode(big);
    case 'utcp-code-mode':
      return utcpCodeMode(big);
  }
}
