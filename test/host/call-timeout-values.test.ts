/**
 * What a call's timeout may be (`DispatchRequest.timeoutMs`, the host's `callTimeoutMs`):
 * `Infinity` is no timeout, for built-ins and server tools alike (Node's timers, and the SDK's
 * request timeout built on them, fire after 1 ms when given Infinity: such a call failed "timed
 * out" at once); a value that is not a number above 0 is refused up front, naming the field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { makePeer, scratchDir } from '../helpers/peers.ts';
import { registerSlowishTool } from '../helpers/tools.ts';

const silent = () => pino({ level: 'silent' });


test('timeoutMs: Infinity is no timeout for a built-in', async () => {
  const host = new ToolHost({ logger: silent() });
  registerSlowishTool(host);
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'slowish', input: {}, timeoutMs: Infinity });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.result));
  } finally {
    await host.close();
  }
});

test("the host's callTimeoutMs: Infinity is no timeout either", async () => {
  const host = new ToolHost({ logger: silent(), callTimeoutMs: Infinity });
  registerSlowishTool(host);
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'slowish', input: {} });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.result));
  } finally {
    await host.close();
  }
});

test('timeoutMs: Infinity is no timeout for a server tool (the SDK request is given a bounded one)', async () => {
  const peer = makePeer(scratchDir(), 'srv', { tools: [{ name: 'slow' }] });
  const host = new ToolHost({ logger: silent() });
  try {
    await host.connectServer(peer.config);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'srv--slow', input: { delay_ms: 30 }, timeoutMs: Infinity });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.result));
  } finally {
    await host.close();
  }
});

test('a timeoutMs that is not a number above 0 is refused before anything opens', async () => {
  const host = new ToolHost({ logger: silent() });
  registerSlowishTool(host);
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    for (const timeoutMs of [NaN, 0, -5, '100', null, { valueOf: () => 100 }] as unknown as number[]) {
      const outcome = await host.dispatch({ inferenceId, name: 'slowish', input: {}, timeoutMs });
      assert.equal(outcome.status, 'refused', `timeoutMs ${String(timeoutMs)}`);
      assert.equal(outcome.refusal?.code, 'invalid_request');
      assert.match(outcome.refusal!.message, /timeoutMs must be a number of milliseconds above 0/);
    }
    assert.deepEqual(events, [], 'a refused call opens nothing');
  } finally {
    await host.close();
  }
});

test("a host's callTimeoutMs that is not a number above 0 is a clear error at construction", () => {
  for (const callTimeoutMs of [NaN, 0, -1, '5000'] as unknown as number[]) {
    assert.throws(() => new ToolHost({ logger: silent(), callTimeoutMs }), /callTimeoutMs must be a number of milliseconds above 0/);
  }
});
