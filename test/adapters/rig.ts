/**
 * What every adapter test's full loop needs: a host with code_execution, a real MCP server
 * process offering `srv--lookup`, a real observer process granted observe + inputs, and the one
 * check each loop ends with — the observer saw the script's inner call under the framework's
 * tool-call id, in the same inference and conversation, and the model call id in process is
 * that id too.
 */
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { makePeer, observePolicy, scratchDir, type Peer } from '../helpers/peers.ts';

/** The script each loop's model sends: one call to the server's tool, its result returned. */
export const LOOKUP_SCRIPT = 'const r = await tools.srv__lookup({ q: 7 }); return "got " + r.tool;';

export interface AdapterRig {
  host: ToolHost;
  /** Every lifecycle event the host emitted, in order. */
  events: HostLifecycleEvent[];
  server: Peer;
  observer: Peer;
  close(): Promise<void>;
}

/**
 * A host with code_execution (JavaScript), connected to a server process and an observer
 * process. The server offers `lookup`, or the tools named in `serverTools`.
 */
export async function adapterRig(serverTools: string[] = ['lookup']): Promise<AdapterRig> {
  const dir = scratchDir();
  const server = makePeer(dir, 'srv', { tools: serverTools.map((name) => ({ name, classes: ['notes'] })) });
  const observer = makePeer(dir, 'obs', { observer: true, policy: observePolicy() });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  const ce: CodeExecution = registerCodeExecution(host, { languages: ['javascript'] });
  const close = async () => {
    await ce.close();
    await host.close();
  };
  try {
    await host.connectServer(server.config);
    await host.connectServer(observer.config);
  } catch (error) {
    await close();
    throw error;
  }
  return { host, events, server, observer, close };
}

/**
 * The observer process saw code_execution under `callId` and the script's `srv--lookup` call
 * under it as parent, in the same inference and `conversationId`, completed; in process the
 * model call id is `callId`; the server process saw the call.
 */
export async function assertInnerCallObserved(rig: AdapterRig, callId: string, conversationId: string): Promise<void> {
  await rig.host.flush();
  await rig.observer.waitFor((e) => e.filter((x) => x.event === 'lifecycle' && x.params.phase !== 'started').length >= 2, 'both calls ended at the observer');
  const seen = rig.observer.lifecycle();
  const parent = seen.find((p) => p.tool === 'code_execution' && p.phase === 'started');
  const inner = seen.find((p) => p.tool === 'srv--lookup' && p.phase === 'started');
  assert.equal(parent?.toolCallId, callId);
  assert.equal(inner?._meta?.['agent-framework/parentToolCallId'], callId);
  assert.equal(inner?.inferenceId, parent?.inferenceId);
  assert.equal(inner?.conversationId, conversationId);
  assert.equal(seen.find((p) => p.tool === 'srv--lookup' && p.phase !== 'started')?.phase, 'completed');
  assert.equal(rig.events.find((e) => e.tool === 'code_execution' && e.phase === 'started')?.modelCallId, callId);
  await rig.server.waitFor((e) => e.some((x) => x.event === 'call'), 'the server saw the call');
}
