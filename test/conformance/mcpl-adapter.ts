/**
 * Adapter from the MCPL RFC-007 conformance runner's contract (`loadHost(root)` →
 * `{ info, observe(vector), parse(params) }`) to toolcell. Every scenario runs the real
 * ToolHost with real stdio peers (fixtures/peer.mjs); only the model's responses are scripted.
 * The adapter supplies observations, never expected outcomes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { errorResult, textResult } from '../../src/host/results.ts';
import type { DispatchOutcome } from '../../src/host/types.ts';
import type { McplConnection } from '../../src/mcpl/connection.ts';
import type { OperatorPolicy } from '../../src/lifecycle/grants.ts';
import { parseObserveParams, OBSERVE_LIMITS } from '../../src/lifecycle/observe-params.ts';
import { readJsonLines } from '../helpers/json-lines.ts';
import { REPO_ROOT, expandInput, hostEvidence, until } from './shared.ts';

const PEER = join(REPO_ROOT, 'fixtures', 'peer.mjs');

interface VectorCall {
  key: string;
  tool: string;
  input: unknown;
  hold?: boolean;
  isError?: boolean;
  resultText?: string;
  modelId?: string;
  approval?: boolean;
  expectExecution?: boolean;
}

interface VectorAction {
  op: string;
  observer?: string;
  params?: any;
  calls?: VectorCall[];
  conversation?: string;
  background?: boolean;
  keys?: string[];
  key?: string;
  waitMs?: number;
  server?: string;
  mayBeIdle?: boolean;
  policy?: OperatorPolicy;
}

export interface LifecycleVector {
  rfcVector: number;
  id: string;
  title: string;
  observers: { id: string; policy: OperatorPolicy; featureSets?: Record<string, unknown> }[];
  tools: { name: string; classes: string[] }[];
  actions: VectorAction[];
  expect: Record<string, unknown[]>;
  subagent?: { name: string; parent: string };
  [key: string]: unknown;
}

const splitTool = (name: string): [string | null, string] => {
  if (name.startsWith('host--')) return [null, name];
  const parts = name.split('--');
  return parts.length > 1 ? [parts.slice(0, -1).join('--'), parts.at(-1)!] : [null, name];
};

const readLog = (path: string): any[] => readJsonLines(path);

export async function loadHost(_root?: string) {
  return {
    info: {
      ...hostEvidence(),
      capabilities: { approvalGate: true, providerIdReuse: true },
      limits: { ...OBSERVE_LIMITS },
      inputBound: 16 * 1024,
      boundaries: [
        'Real ToolHost dispatch, registry, class ingestion, grants, filters and delivery; real stdio peers built on the MCP SDK.',
        'Model responses are scripted: each call action is one model response dispatched through ToolHost.dispatch in its own stream.',
        'Operator grant changes use McplConnection.setPolicy, which re-runs the featureSets/update exchange.',
        'Approvals use ToolHost\'s approval gate: the adapter decides (approve after waitMs, or refuse) as the vector says; timings come from the host\'s own lifecycle events on performance.now().',
      ],
    },
    parse: (params: unknown) => ({ ok: parseObserveParams(params, OBSERVE_LIMITS).ok }),
    observe: (vector: LifecycleVector) => observe(vector),
  };
}

async function observe(vector: LifecycleVector) {
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-rfc007-'));
  const diagnostics: string[] = [];
  const hostCalls: any[] = [];
  const responses: any[] = [];
  const grants: any[] = [];
  const disabledFeatures: { server: string; name: string; reason: string }[] = [];
  const logs = new Map<string, string>();
  const connections = new Map<string, McplConnection>();
  const allCalls = vector.actions.filter((a) => a.op === 'call').flatMap((a) => a.calls!);
  const callsByKey = new Map(allCalls.map((c) => [c.key, c]));
  // Approvals: the vector says which calls wait; the scenario's approve/refuse actions decide.
  const modelIdOf = (call: VectorCall) => call.modelId ?? `call_${call.key}`;
  const keyByModelId = new Map(allCalls.map((c) => [modelIdOf(c), c.key]));
  const decisions = new Map<string, (approved: boolean) => void>();
  const timings: Record<string, Record<string, number>> = {};
  const host = new ToolHost({
    logger: pino({ level: 'silent' }),
    approvalGate: {
      required: (call) => callsByKey.get(keyByModelId.get(call.modelCallId ?? '') ?? '')?.approval === true,
      decide: (call) => new Promise<boolean>((resolve) => decisions.set(keyByModelId.get(call.modelCallId!)!, resolve)),
    },
  });
  host.on('lifecycle', (event) => {
    const key = keyByModelId.get(event.modelCallId ?? '');
    if (!key || !callsByKey.get(key)?.approval) return;
    const t = (timings[key] ??= { resolutionMs: 1 });
    if (event.phase === 'pending') t.pendingAtMs = event.at;
    else if (event.phase === 'started') t.startedAtMs = event.at;
    else t.terminalAtMs = event.at;
  });
  let lateResults = 0;
  host.on('diagnostic', (d) => {
    diagnostics.push(d.message);
    // The contract's structured `disabledFeatures`, read off the host's own feature-disabled
    // diagnostic ("<server>/<name> disabled: <reason>[ (detail)]").
    const match = d.code === 'feature-disabled' && d.serverId ? /^(.*) disabled: (\S+)/.exec(d.message) : null;
    if (match) disabledFeatures.push({ server: d.serverId!, name: match[1]!.slice(d.serverId!.length + 1), reason: match[2]! });
  });
  host.on('late-result', () => {
    lateResults += 1;
  });
  let background: Promise<DispatchOutcome[]> | undefined;
  try {
    const serverIds = new Set<string>([
      ...vector.observers.map((o) => o.id),
      ...vector.tools.map((t) => splitTool(t.name)[0]).filter((x): x is string => x !== null),
    ]);
    // Host built-ins: every planned call to one leaves a call and a result witness.
    const hostPlan = allCalls.filter((c) => splitTool(c.tool)[0] === null);
    for (const tool of vector.tools.filter((t) => splitTool(t.name)[0] === null)) {
      host.registerTool({
        name: tool.name,
        description: 'Synthetic host tool',
        inputSchema: { type: 'object' },
        classes: tool.classes as any,
        handler: async (args) => {
          const index = hostPlan.findIndex((c) => c.tool === tool.name);
          if (index < 0) return errorResult('unexpected host-tool call');
          const planned = hostPlan.splice(index, 1)[0]!;
          hostCalls.push({ event: 'call', key: planned.key, params: { name: tool.name, arguments: args } });
          hostCalls.push({ event: 'result', key: planned.key });
          const result = textResult(planned.resultText ?? 'synthetic-result');
          return planned.isError ? { ...result, isError: true } : result;
        },
      });
    }
    for (const id of serverIds) {
      const observer = vector.observers.find((o) => o.id === id);
      const log = join(dir, `${id}.jsonl`);
      const configPath = join(dir, `${id}.json`);
      logs.set(id, log);
      writeFileSync(
        configPath,
        JSON.stringify({
          log,
          observer: !!observer,
          featureSets: observer?.featureSets,
          tools: vector.tools
            .filter((t) => splitTool(t.name)[0] === id)
            .map((t) => ({ name: splitTool(t.name)[1], description: 'Synthetic conformance tool', classes: t.classes })),
          calls: allCalls.filter((c) => splitTool(c.tool)[0] === id).map((c) => ({ ...c, input: expandInput(c.input) })),
        }),
      );
      const connection = await host.connectServer({
        id,
        command: process.execPath,
        args: [PEER],
        env: { TOOLCELL_PEER_CONFIG: configPath },
        ...(observer ? { policy: observer.policy } : {}),
        // The vectors exercise RFC-007's reading of entries that grant nothing (a bare parent).
        strictCapabilities: false,
      });
      connections.set(id, connection);
      grants.push({ server: id, stage: 'initial', paths: connection.grantedPaths });
    }
    const barrier = async () => {
      await host.flush();
      for (const connection of connections.values()) if (connection.isConnected) await connection.request('fixture/barrier');
    };
    const witnessed = (key: string) =>
      hostCalls.some((x) => x.event === 'call' && x.key === key) ||
      [...logs.values()].some((path) => readLog(path).some((x) => x.event === 'call' && x.key === key));

    for (const [index, action] of vector.actions.entries()) {
      const observerId = action.observer ?? 'obs';
      switch (action.op) {
        case 'observe': {
          const params =
            action.params?.$fixture === 'rules-over-limit'
              ? { rules: Array.from({ length: OBSERVE_LIMITS.rules + 1 }, () => ({ match: {} })) }
              : action.params;
          const reply = await connections.get(observerId)!.request('fixture/control', {
            op: 'observe',
            ...(Object.hasOwn(action, 'params') ? { params } : {}),
          });
          responses.push({ action: index, server: observerId, response: reply.response });
          break;
        }
        case 'call': {
          const stream = host.openStream(action.conversation!);
          const inferenceId = stream.beginInference();
          const turn = Promise.all(
            action.calls!.map((call) =>
              host.dispatch({ inferenceId, modelCallId: modelIdOf(call), name: call.tool, input: expandInput(call.input) }),
            ),
          ).then((outcomes) => {
            // The scripted final text response: the turn ends and so does its stream.
            stream.end('turn complete');
            return outcomes;
          });
          // A call waiting for approval has no execution witness yet; it has a question to the gate.
          await until(() => action.calls!.every((c) => (c.approval ? decisions.has(c.key) : witnessed(c.key))), 'provider execution witness');
          if (action.background) {
            background = turn;
            await barrier();
          } else {
            await turn;
            await barrier();
          }
          break;
        }
        case 'wait':
          if (background) await background;
          background = undefined;
          await barrier();
          break;
        case 'release':
          for (const [server, connection] of connections) {
            const keys = action.keys!.filter((key) => splitTool(callsByKey.get(key)!.tool)[0] === server);
            if (keys.length) await connection.request('fixture/control', { op: 'release', keys });
          }
          break;
        case 'disconnect': {
          const connection = connections.get(action.server!)!;
          await connection.request('fixture/control', { op: 'disconnect' });
          await until(() => !connection.isConnected, 'provider transport closed');
          break;
        }
        case 'interrupt': {
          const aborted = host.interrupt(action.conversation!, 'RFC-007 synthetic interruption');
          if (aborted === 0 && !action.mayBeIdle) throw new Error('the host had no open call to interrupt');
          break;
        }
        case 'settle':
          // The late result must have gone through the host's own result path.
          await until(() => lateResults > 0, 'late result consumed by the host');
          await barrier();
          break;
        case 'approve': {
          // The vector's human takes waitMs to approve; the host's clock must exclude that wait.
          await new Promise((r) => setTimeout(r, action.waitMs ?? 0));
          decisions.get(action.key!)!(true);
          break;
        }
        case 'refuse':
          decisions.get(action.key!)!(false);
          break;
        case 'grant': {
          const connection = connections.get(observerId)!;
          await connection.setPolicy(action.policy!);
          grants.push({ server: observerId, stage: 'change', paths: connection.grantedPaths });
          break;
        }
        default:
          throw new Error(`unsupported scenario operation: ${action.op}`);
      }
    }
    await barrier();
    for (const [server, connection] of connections) grants.push({ server, stage: 'final', paths: connection.grantedPaths });
    const peers: Record<string, any[]> = {};
    for (const [id, path] of logs) peers[id] = readLog(path);
    return { peers, hostCalls, responses, grants, diagnostics, diagnosticCodes: codes(diagnostics), disabledFeatures, timings };
  } catch (error) {
    (error as Error).message += `\nhost diagnostics:\n${diagnostics.slice(-8).join('\n')}`;
    throw error;
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function codes(lines: string[]): string[] {
  return ['inputs-without-observe', 'inputs-unnarrowed'].filter((code) => lines.some((l) => l.includes(code)));
}
