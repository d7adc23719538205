/**
 * Background scripts through `serve --http` (issue 43): a client starts a script with
 * `background: true`, gets `{status: "running", scriptId}`, is told by a
 * `notifications/toolcell/script_finished` notification when it ends (another client is told
 * nothing), and reads the result with `action: "wait"`. Another client naming the scriptId
 * gets the unknown-id answer (attack first: sessions own their conversations).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { connectClient, serveFixtureHost } from './fixture-host.ts';
import { waitUntil } from '../helpers/peers.ts';
import { SCRIPT_FINISHED_METHOD } from '../../src/serve/script-finished.ts';
import { UNKNOWN_SCRIPT } from '../../src/code-execution/background/actions.ts';

/** Every notification of `method` the transport receives. */
function recordNotifications(transport: Transport, method: string): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    if ('method' in message && message.method === method) seen.push(message.params as Record<string, unknown>);
    deliver?.(message, extra);
  };
  return seen;
}

type Envelope = { status?: string; scriptId?: string; value?: unknown; ok: boolean };

test('serve: a background script answers running, its client alone is notified when it ends, and wait returns its result; another client cannot reach it', async () => {
  const served = await serveFixtureHost({ rendezvousOf: 2 });
  const alice = await connectClient(served.serving.url);
  const mallory = await connectClient(served.serving.url);
  const aliceHears = recordNotifications(alice.transport, SCRIPT_FINISHED_METHOD);
  const malloryHears = recordNotifications(mallory.transport, SCRIPT_FINISHED_METHOD);
  try {
    const started = await alice.client.callTool({ name: 'code_execution', arguments: { code: 'return await tools.rendezvous({});', background: true, wait_ms: 0 } });
    const running = started.structuredContent as Envelope;
    assert.equal(running.status, 'running');
    // Mallory names Alice's script: the answer for an id that never existed, and the script runs on.
    for (const action of ['wait', 'status', 'cancel']) {
      const answer = await mallory.client.callTool({ name: 'code_execution', arguments: { action, scriptId: running.scriptId, wait_ms: 0 } });
      assert.equal(answer.isError, true);
      assert.equal((answer.content as { text: string }[])[0]!.text, UNKNOWN_SCRIPT);
    }
    const status = await alice.client.callTool({ name: 'code_execution', arguments: { action: 'status', scriptId: running.scriptId } });
    assert.equal((status.structuredContent as Envelope).status, 'running');
    // Mallory's own call meets Alice's script at the rendezvous: both return.
    await mallory.client.callTool({ name: 'rendezvous', arguments: {} });
    await waitUntil(() => aliceHears.length > 0, 'the script_finished notification', 60_000);
    assert.deepEqual(aliceHears, [{ scriptId: running.scriptId, status: 'completed', ok: true }]);
    const done = await alice.client.callTool({ name: 'code_execution', arguments: { action: 'wait', scriptId: running.scriptId, wait_ms: 60_000 } });
    const envelope = done.structuredContent as Envelope;
    assert.deepEqual([envelope.status, envelope.ok], ['completed', true]);
    // The script returned Alice's conversation id; Mallory naming it reaches her own namespace, not Alice's script.
    assert.match(String(envelope.value), /^http-/);
    const named = await mallory.client.callTool({ name: 'code_execution', arguments: { action: 'status', scriptId: running.scriptId }, _meta: { 'agent-framework/conversationId': envelope.value } });
    assert.equal((named.content as { text: string }[])[0]!.text, UNKNOWN_SCRIPT);
    // A round trip on Mallory's session after the notification: nothing came for her.
    await mallory.client.listTools();
    assert.deepEqual(malloryHears, []);
  } finally {
    await alice.client.close();
    await mallory.client.close();
    await served.close();
  }
});
