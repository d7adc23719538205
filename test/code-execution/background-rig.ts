/**
 * A host with code_execution and two tools for background-script tests: `ping` answers at
 * once, `hold` answers when the test lets it go (so a script is "still running" by an event,
 * never by the machine's speed).
 */
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution, type CodeExecutionOptions } from '../../src/code-execution/index.ts';
import type { DispatchOutcome } from '../../src/host/types.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { waitUntil } from '../helpers/peers.ts';

export type Envelope = { ok: boolean; status?: string; scriptId?: string; value?: unknown; error?: { kind: string; message: string }; calls: Array<{ name: string; status: string }> };

export function backgroundRig(options: CodeExecutionOptions = {}) {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const held: Array<() => void> = [];
  let holds = 0;
  host.registerTool({ name: 'ping', description: 'pong', inputSchema: { type: 'object' }, handler: async () => textResult('pong') });
  host.registerTool({
    name: 'hold',
    description: 'Answers when the test lets it',
    inputSchema: { type: 'object' },
    handler: () => {
      holds += 1;
      return new Promise((resolve) => held.push(() => resolve(textResult('let go'))));
    },
  });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  const ce = registerCodeExecution(host, { languages: ['javascript', 'python'], ...options });
  const call = (conversation: string, input: Record<string, unknown>, inferenceId = host.beginInference({ conversationId: conversation })): Promise<DispatchOutcome> =>
    host.dispatch({ inferenceId, name: 'code_execution', input });
  const envelope = (outcome: DispatchOutcome): Envelope => {
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.result));
    assert.ok(outcome.result.structuredContent, JSON.stringify(outcome.result));
    return outcome.result.structuredContent as unknown as Envelope;
  };
  const text = (outcome: DispatchOutcome): string => (outcome.result.content[0] as unknown as { text: string }).text;
  /** Resolves once `n` hold calls are waiting, then lets the oldest one go. */
  const release = async (n = 1) => {
    await waitUntil(() => held.length >= n, `${n} hold call(s)`, 30_000);
    held.shift()!();
  };
  return { host, ce, events, call, envelope, text, release, holds: () => holds, held, close: async () => (await ce.close(), await host.close()) };
}
