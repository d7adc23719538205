/**
 * A host with `code_execution`, a fixture provider, a throwing built-in and four observer
 * processes with different filters — shared by the end-to-end tests of both languages.
 */
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import type { DispatchOutcome } from '../../src/host/types.ts';
import { makePeer, scratchDir, type Peer } from '../helpers/peers.ts';

export interface Rig {
  host: ToolHost;
  codeExecution: CodeExecution;
  dir: string;
  observers: Record<'all' | 'comms' | 'named' | 'none', Peer>;
  /** How many times the throwing built-in did its work before throwing. */
  thrown: { count: number };
  barrier(): Promise<void>;
  close(): Promise<void>;
}

const FULL = ['toolLifecycle.observe', 'toolLifecycle.inputs'];

export async function makeRig(): Promise<Rig> {
  const dir = scratchDir('toolcell-ce-');
  const provider = makePeer(dir, 'x', {
    tools: [
      { name: 'run', classes: ['shell'], description: 'Run a command' },
      { name: 'fetch', classes: ['web'], description: 'Fetch a page' },
      { name: 'send', classes: ['comms'], description: 'Send a message' },
    ],
  });
  const observers = {
    // Inputs narrowed by name to every tool: only the class exclusions can withhold arguments.
    all: makePeer(dir, 'all', {
      observer: true,
      filter: { rules: [{ match: {}, input: true }] },
      policy: { enabledCapabilities: FULL, toolLifecycle: { inputs: { tools: ['*'] } } },
    }),
    comms: makePeer(dir, 'comms', { observer: true, filter: { rules: [{ match: { class: 'comms' } }] }, policy: { enabledCapabilities: FULL, toolLifecycle: { inputs: { classes: 'default' } } } }),
    named: makePeer(dir, 'named', { observer: true, filter: { rules: [{ match: { serverTool: 'fetch' } }] }, policy: { enabledCapabilities: ['toolLifecycle.observe'] } }),
    none: makePeer(dir, 'none', { observer: true, filter: { rules: [{ match: { tool: 'nothing--*' } }] }, policy: { enabledCapabilities: ['toolLifecycle.observe'] } }),
  };
  // Host tool policy, a refusal site: any call whose arguments say `forbidden` is refused.
  const host = new ToolHost({
    logger: pino({ level: 'silent' }),
    policy: ({ input }) => (input.forbidden === true ? 'forbidden by the test policy' : undefined),
  });
  const thrown = { count: 0 };
  let finishes = 0;
  host.registerTool({
    name: 'finish_turn',
    description: 'Asks for the turn to end.',
    inputSchema: { type: 'object' },
    classes: ['control'],
    handler: async () => ({ content: [{ type: 'text', text: `finishing ${++finishes}` }], _meta: { 'agent-framework/endTurn': true } }),
  });
  host.registerTool({
    name: 'notify',
    description: 'Notifies a person; this fixture throws synchronously after doing its work.',
    inputSchema: { type: 'object' },
    classes: ['comms'],
    handler: (() => {
      thrown.count += 1;
      throw new Error('notify blew up after sending');
    }) as any,
  });
  await host.connectServer(provider.config);
  for (const peer of Object.values(observers)) await host.connectServer(peer.config);
  for (const peer of Object.values(observers)) await peer.waitFor((e) => e.some((x) => x.event === 'observe-response'), 'filter in force');
  const codeExecution = registerCodeExecution(host, { innerCallTimeoutMs: 20_000, innerCallGraceMs: 1_000 });
  return {
    host,
    codeExecution,
    dir,
    observers,
    thrown,
    async barrier() {
      await host.flush();
      for (const id of Object.keys(observers)) await host.server(id)!.request('fixture/barrier');
    },
    async close() {
      await codeExecution.close();
      await host.close();
    },
  };
}

export interface TurnCall {
  name: string;
  input: Record<string, unknown>;
  modelCallId?: string;
}

/** One model response: every call dispatched in the same tick, then the stream ends. */
export async function turn(rig: Rig, conversationId: string, calls: TurnCall[]): Promise<{ outcomes: DispatchOutcome[]; inferenceId: string }> {
  const stream = rig.host.openStream(conversationId);
  const inferenceId = stream.beginInference();
  const outcomes = await Promise.all(calls.map((c) => rig.host.dispatch({ inferenceId, name: c.name, input: c.input, ...(c.modelCallId ? { modelCallId: c.modelCallId } : {}) })));
  stream.end('turn complete');
  return { outcomes, inferenceId };
}

/** Lifecycle params an observer received, grouped by toolCallId in arrival order. */
export function groups(peer: Peer): Map<string, any[]> {
  const map = new Map<string, any[]>();
  for (const p of peer.lifecycle()) {
    const list = map.get(p.toolCallId) ?? [];
    list.push(p);
    map.set(p.toolCallId, list);
  }
  return map;
}

export const PARENT = 'agent-framework/parentToolCallId';

/** Inner calls of one code_execution call, as one observer saw them. */
export function innerCalls(peer: Peer, parentId: string): any[][] {
  return [...groups(peer).values()].filter((g) => g[0]._meta?.[PARENT] === parentId);
}
