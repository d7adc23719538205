/**
 * `dispatch({ signal })`: one call's own abort signal (issue 18 item 8, issue 21's adapters
 * thread the framework's abort through it). Its abort ends that call `aborted` and stops its
 * work — a built-in's ctx.signal, a server's `notifications/cancelled`, a script — for model
 * and script calls alike; an already-aborted signal opens nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import type { ApprovalGate } from '../../src/host/types.ts';
import { makePeer, scratchDir } from '../helpers/peers.ts';
import { registerWaitTool } from '../helpers/tools.ts';

const silent = () => pino({ level: 'silent' });

function hostWithEvents(options: ConstructorParameters<typeof ToolHost>[0] = {}) {
  const host = new ToolHost({ logger: silent(), ...options });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  return { host, events };
}

/** A built-in that stays open until its signal aborts, and tells the test when it started and what it saw. */
function registerHold(host: ToolHost) {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const seen: { reason?: string } = {};
  host.registerTool({
    name: 'hold',
    description: 'Holds until aborted',
    inputSchema: { type: 'object' },
    classes: ['shell'],
    handler: (_args, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          seen.reason = (ctx.signal.reason as Error).message;
          resolve(textResult('stopped'));
        });
        started();
      }),
  });
  return { running, seen };
}

test('aborting a running call ends it aborted with the reason, and its handler sees the abort', async () => {
  const { host, events } = hostWithEvents();
  const hold = registerHold(host);
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const controller = new AbortController();
    const pending = host.dispatch({ inferenceId, name: 'hold', input: {}, signal: controller.signal });
    await hold.running;
    controller.abort(new Error('the user pressed stop'));
    const outcome = await pending;
    assert.equal(outcome.status, 'aborted');
    assert.match(outcome.result.content[0]!.text as string, /the user pressed stop/);
    assert.equal(hold.seen.reason, 'the user pressed stop');
    assert.deepEqual(events.map((e) => e.phase), ['started', 'aborted']);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'the listener went with the terminal');
  } finally {
    await host.close();
  }
});

test('an abort without a reason, or with a string, still reads as words', async () => {
  const { host } = hostWithEvents();
  const hold = registerHold(host);
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const controller = new AbortController();
    const pending = host.dispatch({ inferenceId, name: 'hold', input: {}, signal: controller.signal });
    await hold.running;
    controller.abort(); // a DOMException AbortError
    const outcome = await pending;
    assert.equal(outcome.status, 'aborted');
    assert.match(outcome.result.content[0]!.text as string, /^Tool call aborted: \S/);
  } finally {
    await host.close();
  }
});

test('an already-aborted signal opens nothing: refused (aborted), no lifecycle, the tool never runs', async () => {
  const { host, events } = hostWithEvents();
  let ran = false;
  host.registerTool({ name: 'work', description: 'w', inputSchema: { type: 'object' }, classes: ['shell'], handler: async () => ((ran = true), textResult('done')) });
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'work', input: {}, signal: AbortSignal.abort(new Error('too late')) });
    assert.equal(outcome.status, 'refused');
    assert.equal(outcome.refusal?.code, 'aborted');
    assert.match(outcome.result.content[0]!.text as string, /too late/);
    assert.equal(ran, false);
    assert.equal(events.length, 0);
  } finally {
    await host.close();
  }
});

test('one signal serves many calls: completed calls leave no listener, and its later abort touches only the open one', async () => {
  const { host } = hostWithEvents();
  const releases = registerWaitTool(host);
  host.registerTool({ name: 'quick', description: 'q', inputSchema: { type: 'object' }, classes: ['shell'], handler: async () => textResult('ok') });
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) assert.equal((await host.dispatch({ inferenceId, name: 'quick', input: {}, signal: controller.signal })).status, 'completed');
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    const other = host.dispatch({ inferenceId, name: 'wait', input: {} });
    const mine = host.dispatch({ inferenceId, name: 'wait', input: {}, signal: controller.signal });
    controller.abort(new Error('stop mine'));
    assert.equal((await mine).status, 'aborted');
    assert.equal(host.openCallIds().length, 1, 'the call without the signal is still open');
    releases[0]!();
    assert.equal((await other).status, 'completed');
  } finally {
    await host.close();
  }
});

test('a call waiting for approval ends aborted when its signal aborts; the gate sees its own signal abort', async () => {
  let gateSignal: AbortSignal | undefined;
  let asked!: () => void;
  const askedP = new Promise<void>((resolve) => (asked = resolve));
  const gate: ApprovalGate = {
    required: () => true,
    decide: (_call, signal) => {
      gateSignal = signal;
      asked();
      return new Promise(() => undefined); // nobody answers
    },
  };
  const { host, events } = hostWithEvents({ approvalGate: gate });
  let ran = false;
  host.registerTool({ name: 'work', description: 'w', inputSchema: { type: 'object' }, classes: ['shell'], handler: async () => ((ran = true), textResult('done')) });
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const controller = new AbortController();
    const pending = host.dispatch({ inferenceId, name: 'work', input: {}, signal: controller.signal });
    await askedP;
    controller.abort(new Error('no longer needed'));
    const outcome = await pending;
    assert.equal(outcome.status, 'aborted');
    assert.equal(gateSignal?.aborted, true);
    assert.equal(ran, false);
    assert.deepEqual(events.map((e) => e.phase), ['pending', 'aborted']);
  } finally {
    await host.close();
  }
});

test('a script call (with a parent) is aborted by its own signal; the parent goes on', async () => {
  const { host, events } = hostWithEvents();
  const releases = registerWaitTool(host);
  const hold = registerHold(host);
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const parent = host.dispatch({ inferenceId, name: 'wait', input: {} });
    const parentId = host.openCallIds()[0]!;
    const controller = new AbortController();
    const child = host.dispatch({ inferenceId, name: 'hold', input: {}, parentToolCallId: parentId, signal: controller.signal });
    await hold.running;
    controller.abort(new Error('script gave up'));
    const outcome = await child;
    assert.equal(outcome.status, 'aborted');
    const childEnd = events.find((e) => e.toolCallId === outcome.toolCallId && e.phase === 'aborted');
    assert.equal(childEnd?.origin, 'script');
    assert.equal(childEnd?.parentToolCallId, parentId);
    assert.deepEqual(host.openCallIds(), [parentId]);
    releases[0]!();
    assert.equal((await parent).status, 'completed');
  } finally {
    await host.close();
  }
});

test('a server call aborted by its signal is cancelled downstream (notifications/cancelled)', async () => {
  const peer = makePeer(scratchDir(), 'srv', { tools: [{ name: 'slow' }] });
  const host = new ToolHost({ logger: silent() });
  try {
    await host.connectServer(peer.config);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const controller = new AbortController();
    const pending = host.dispatch({ inferenceId, name: 'srv--slow', input: { delay_ms: 60_000 }, signal: controller.signal });
    await peer.waitFor((e) => e.some((x) => x.event === 'call'), 'the call reached the server');
    controller.abort(new Error('framework aborted'));
    const outcome = await pending;
    assert.equal(outcome.status, 'aborted');
    const events = await peer.waitFor((e) => e.some((x) => x.event === 'cancelled'), 'notifications/cancelled');
    const call = events.find((e) => e.event === 'call')!;
    const cancelled = events.find((e) => e.event === 'cancelled')!;
    assert.equal(typeof cancelled.params.requestId, 'number');
    assert.ok(call, 'the call was logged');
  } finally {
    await host.close();
  }
});

test('a code_execution call aborted by its signal stops its script: the inner call it waits on is left to end on its own, and the next run works', async () => {
  const { host, events } = hostWithEvents();
  const releases = registerWaitTool(host);
  const ce = registerCodeExecution(host, { languages: ['javascript'] });
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const controller = new AbortController();
    const pending = host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'await tools.wait({}); return "finished"' }, signal: controller.signal });
    // Wait until the script's inner call opened.
    await new Promise<void>((resolve) => {
      const check = (e: HostLifecycleEvent) => {
        if (e.tool === 'wait' && e.phase === 'started') {
          host.off('lifecycle', check);
          resolve();
        }
      };
      host.on('lifecycle', check);
    });
    controller.abort(new Error('framework aborted the step'));
    const outcome = await pending;
    assert.equal(outcome.status, 'aborted');
    assert.match(outcome.result.content[0]!.text as string, /framework aborted the step/);
    const parentEnd = events.find((e) => e.tool === 'code_execution' && e.phase === 'aborted');
    assert.ok(parentEnd);
    releases[0]!();
    const next = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'code_execution', input: { code: 'return 41 + 1' } });
    assert.equal(next.status, 'completed');
    assert.match(JSON.stringify(next.result), /42/);
  } finally {
    await ce.close();
    await host.close();
  }
});
