/**
 * Adapter from the MCPL RFC-008 conformance runner's contract (`loadHost(root)` →
 * `{ info, observe(vector) }`, one observation per stage) to toolcell: a fresh ToolHost per
 * vector, a real provider peer whose listing changes between stages (announced with
 * `notifications/tools/list_changed`), and a real observer granted both lifecycle paths with
 * an `input: true` filter.
 */
import { mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { REPO_ROOT, hostEvidence, until } from './shared.ts';

const PEER = join(REPO_ROOT, 'fixtures', 'peer.mjs');

export interface ClassStage {
  tool: { name: string; description: string; inputSchema: Record<string, unknown>; _meta?: Record<string, unknown> };
  expect: { classes: string[]; source: string; input: 'sent' | 'withheld' };
  modelName: string;
  diagnosticHint?: string;
}

export interface ClassVector {
  id: string;
  rfcVector: number;
  origin: 'server' | 'host';
  inputsPolicy: Record<string, unknown>;
  input: Record<string, unknown>;
  overrides?: Record<string, string[]>;
  hostClasses?: Record<string, string[]>;
  stages: ClassStage[];
}

const readLog = (path: string): any[] =>
  existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];

const peerTool = (tool: ClassStage['tool']) => ({
  name: tool.name,
  description: tool.description,
  inputSchema: tool.inputSchema,
  ...(tool._meta ? { meta: tool._meta } : {}),
});

export async function loadHost(_root?: string) {
  return { info: { ...hostEvidence(), capabilities: {} }, observe: (vector: ClassVector) => observe(vector) };
}

async function observe(vector: ClassVector) {
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-rfc008-'));
  const diagnostics: string[] = [];
  const host = new ToolHost({ logger: pino({ level: 'silent' }), classOverrides: (vector.overrides ?? {}) as any });
  host.on('diagnostic', (d) => diagnostics.push(d.message));
  try {
    const obsLog = join(dir, 'obs.jsonl');
    writeFileSync(join(dir, 'obs.json'), JSON.stringify({ log: obsLog, observer: true, filter: { rules: [{ match: {}, input: true }] } }));
    const first = vector.stages[0]!;
    let listings = 0;
    const providerLog = join(dir, 's.jsonl');
    if (vector.origin === 'host') {
      host.registerTool({
        name: first.modelName,
        description: first.tool.description,
        inputSchema: first.tool.inputSchema,
        classes: (vector.hostClasses?.[first.modelName] ?? []) as any,
        handler: async () => textResult('synthetic-result'),
      });
    } else {
      writeFileSync(join(dir, 's.json'), JSON.stringify({ log: providerLog, tools: [peerTool(first.tool)] }));
      const provider = await host.connectServer({ id: 's', command: process.execPath, args: [PEER], env: { TOOLCELL_PEER_CONFIG: join(dir, 's.json') } });
      provider.on('tools', () => {
        listings += 1;
      });
    }
    const obs = await host.connectServer({
      id: 'obs',
      command: process.execPath,
      args: [PEER],
      env: { TOOLCELL_PEER_CONFIG: join(dir, 'obs.json') },
      policy: {
        enabledCapabilities: ['tools', 'toolLifecycle.observe', 'toolLifecycle.inputs'],
        toolLifecycle: { inputs: vector.inputsPolicy as any },
      },
    });
    await until(() => readLog(obsLog).some((e) => e.event === 'observe-response'), 'observer filter in force');
    const stream = host.openStream('conv_1');
    const results = [];
    for (const [index, stage] of vector.stages.entries()) {
      if (index > 0 && vector.origin === 'server') {
        const before = listings;
        await host.server('s')!.request('fixture/control', { op: 'relist', tools: [peerTool(stage.tool)] });
        await until(() => listings > before, 'host re-listed after list_changed');
      }
      const listing = host.listTools().find((t) => t.name === stage.modelName);
      const inferenceId = stream.beginInference();
      const outcome = await host.dispatch({ inferenceId, name: stage.modelName, input: structuredClone(vector.input) });
      await host.flush();
      await obs.request('fixture/barrier');
      const opening = readLog(obsLog).find((e) => e.event === 'lifecycle' && e.params.toolCallId === outcome.toolCallId && e.params.phase === 'started')?.params;
      results.push({
        descriptor: { class: listing ? [...listing.classes] : undefined },
        effective: listing ? { classes: [...listing.classes], source: listing.classSource } : undefined,
        model: listing ? { name: listing.name, description: listing.description, inputSchema: listing.inputSchema } : {},
        opening,
        listedRevisions: readLog(providerLog).filter((e) => e.event === 'list').map((e) => e.revision),
        diagnostics: [...diagnostics],
        outcome: outcome.status,
      });
    }
    stream.end();
    return results;
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
