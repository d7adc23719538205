/**
 * A JIT approval asked by a background script survives the terminal of the call that answered
 * `running` (issue 43: a person may answer after the model's call is over): approved, the call
 * runs under the first call's id; and a script cancelled while its call waits for a person has
 * that call declined, never run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { waitUntil } from '../helpers/peers.ts';

function gatedHost() {
  const answers: Array<(approved: boolean) => void> = [];
  const host = new ToolHost({
    logger: pino({ level: 'silent' }),
    approvalGate: {
      required: (call) => call.tool === 'transfer',
      decide: () => new Promise((resolve) => answers.push(resolve)),
    },
  });
  let ran = 0;
  host.registerTool({ name: 'transfer', description: 'Moves money', inputSchema: { type: 'object' }, handler: async () => textResult(`moved ${++ran}`) });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  const ce = registerCodeExecution(host, { languages: ['javascript'] });
  const call = (input: Record<string, unknown>) => host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'code_execution', input });
  return { host, ce, answers, events, ran: () => ran, call, close: async () => (await ce.close(), await host.close()) };
}

test('a pending approval outlives the call that started the script; approved later, it runs under that call', async () => {
  const r = gatedHost();
  try {
    // The question is asked while the first call is still open; then its stream ends (the
    // adapter call is over): the call ends, its script and the question go on.
    const stream = r.host.openStream('c');
    const first = r.host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code: 'return await tools.transfer({});', background: true, wait_ms: 60_000 } });
    await waitUntil(() => r.answers.length === 1, 'the approval question');
    stream.end('the adapter call is over');
    assert.equal((await first).status, 'aborted');
    const parent = r.events.find((e) => e.tool === 'code_execution')!.toolCallId;
    const finished = new Promise<{ scriptId: string; ok: boolean }>((resolve) => r.host.once('script-finished', resolve));
    r.answers[0]!(true);
    const info = await finished;
    assert.equal(info.ok, true);
    const done = await r.call({ action: 'wait', scriptId: info.scriptId, wait_ms: 60_000 });
    assert.deepEqual((done.result.structuredContent as { value: unknown }).value, 'moved 1');
    const transfer = r.events.filter((e) => e.tool === 'transfer');
    assert.deepEqual(transfer.map((e) => e.phase), ['pending', 'started', 'completed']);
    assert.ok(transfer.every((e) => e.parentToolCallId === parent));
  } finally {
    await r.close();
  }
});

test('cancelling a background script declines its call still waiting for a person: it never runs', async () => {
  const r = gatedHost();
  try {
    const started = await r.call({ code: 'return await tools.transfer({});', background: true, wait_ms: 0 });
    const { scriptId } = started.result.structuredContent as { scriptId: string };
    await waitUntil(() => r.answers.length === 1, 'the approval question');
    const cancelled = await r.call({ action: 'cancel', scriptId });
    assert.equal((cancelled.result.structuredContent as { status: string }).status, 'cancelled');
    r.answers[0]!(true);
    await waitUntil(() => r.events.some((e) => e.tool === 'transfer' && e.phase !== 'pending'), 'the transfer terminal');
    assert.equal(r.events.find((e) => e.tool === 'transfer' && e.phase !== 'pending')!.phase, 'aborted');
    assert.equal(r.ran(), 0);
  } finally {
    await r.close();
  }
});
