/** Approvals: the `pending` phase, decisions, aborts while waiting, and scripts whose clock pauses. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import type { ApprovalRequest } from '../../src/host/types.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { makePeer, observePolicy, scratchDir, waitUntil } from '../helpers/peers.ts';

/** A gate that holds every call whose input says `approve_me` until the test decides. */
function manualGate() {
  const waiting = new Map<string, { request: ApprovalRequest; signal: AbortSignal; decide: (approved: boolean) => void }>();
  return {
    waiting,
    gate: {
      required: (call: { input: Record<string, unknown> }) => call.input.approve_me === true,
      decide: (request: ApprovalRequest, signal: AbortSignal) =>
        new Promise<boolean>((resolve) => waiting.set(request.toolCallId, { request, signal, decide: resolve })),
    },
  };
}

function setup() {
  const { gate, waiting } = manualGate();
  const host = new ToolHost({ logger: pino({ level: 'silent' }), approvalGate: gate });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  let runs = 0;
  host.registerTool({
    name: 'deploy',
    description: 'Deploys',
    inputSchema: { type: 'object' },
    classes: ['shell'],
    handler: async () => textResult(`deployed ${++runs}`),
  });
  return { host, events, waiting, runs: () => runs };
}

test('an approved call is pending (no input), then started with input, and its duration excludes the wait', async () => {
  const { host, events, waiting, runs } = setup();
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const outcome = host.dispatch({ inferenceId, name: 'deploy', input: { approve_me: true, env: 'prod' } });
  const [entry] = await waitUntil(() => (waiting.size ? [...waiting.values()] : undefined), 'the gate was asked');
  assert.equal(entry!.request.tool, 'deploy');
  assert.deepEqual(entry!.request.input, { approve_me: true, env: 'prod' });
  assert.equal(runs(), 0, 'nothing runs while pending');
  const pendingAt = performance.now();
  await waitUntil(() => performance.now() - pendingAt > 300 || undefined, "a human-sized wait");
  entry!.decide(true);
  const done = await outcome;
  assert.equal(done.status, 'completed');
  assert.equal(runs(), 1);
  assert.deepEqual(events.map((e) => e.phase), ['pending', 'started', 'completed']);
  assert.equal(events[0]!.input, undefined, 'pending carries no input');
  assert.deepEqual(events[1]!.input, { approve_me: true, env: 'prod' });
  assert.ok(done.durationMs! < 250, `duration ${done.durationMs} excludes the approval wait`);
  await host.close();
});

test('a refused call is pending then aborted, never runs, and says why', async () => {
  const { host, events, waiting, runs } = setup();
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const outcome = host.dispatch({ inferenceId, name: 'deploy', input: { approve_me: true } });
  const [entry] = await waitUntil(() => (waiting.size ? [...waiting.values()] : undefined), 'the gate was asked');
  entry!.decide(false);
  const done = await outcome;
  assert.equal(done.status, 'aborted');
  assert.equal(done.refusal?.code, 'approval_refused');
  assert.equal(runs(), 0);
  assert.deepEqual(events.map((e) => e.phase), ['pending', 'aborted']);
  assert.equal(events[1]!.durationMs, undefined, 'a call that never started has no duration');
  await host.close();
});

test('a stream ending while a call is pending aborts it and tells the gate', async () => {
  const { host, events, waiting, runs } = setup();
  const stream = host.openStream('c');
  const inferenceId = stream.beginInference();
  const outcome = host.dispatch({ inferenceId, name: 'deploy', input: { approve_me: true } });
  const [entry] = await waitUntil(() => (waiting.size ? [...waiting.values()] : undefined), 'the gate was asked');
  assert.equal(stream.end(), 1);
  assert.equal((await outcome).status, 'aborted');
  assert.equal(entry!.signal.aborted, true, 'the gate can withdraw its prompt');
  entry!.decide(true); // a late approval changes nothing
  await new Promise((r) => setImmediate(r));
  assert.equal(runs(), 0);
  assert.deepEqual(events.map((e) => e.phase), ['pending', 'aborted']);
  await host.close();
});

test('observers receive pending as metadata only, then started with the requested input', async () => {
  const dir = scratchDir();
  const observer = makePeer(dir, 'obs', { observer: true, policy: observePolicy(['shell']), filter: { rules: [{ match: {}, input: true }] } });
  const { host, waiting } = setup();
  try {
    await host.connectServer(observer.config);
    await observer.waitFor((e) => e.some((x) => x.event === 'observe-response'), 'filter');
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = host.dispatch({ inferenceId, name: 'deploy', input: { approve_me: true, env: 'prod' } });
    await observer.waitFor((e) => e.some((x) => x.event === 'lifecycle' && x.params.phase === 'pending'), 'pending delivered');
    [...waiting.values()][0]!.decide(true);
    await outcome;
    const life = (await observer.waitFor((e) => e.filter((x) => x.event === 'lifecycle').length === 3, 'three phases')).filter((x) => x.event === 'lifecycle').map((x) => x.params);
    assert.deepEqual(life.map((p) => p.phase), ['pending', 'started', 'completed']);
    assert.ok(!('input' in life[0]) && !('inputWithheld' in life[0]), 'pending is metadata only');
    assert.deepEqual(life[1].input, { approve_me: true, env: 'prod' });
  } finally {
    await host.close();
  }
});

test("waiting for approval never counts against a script's time limit", async () => {
  const { host, waiting } = setup();
  const codeExecution = registerCodeExecution(host, { languages: ['javascript', 'python'] });
  try {
    for (const [language, code] of [
      ['javascript', "return await tools.deploy({ approve_me: true });"],
      ['python', 'await tools.deploy({"approve_me": True})'],
    ] as const) {
      waiting.clear();
      const inferenceId = host.beginInference({ conversationId: `script-${language}` });
      const outcome = host.dispatch({ inferenceId, name: 'code_execution', input: { code, language, time_limit_ms: 1000 } });
      const [entry] = await waitUntil(() => (waiting.size ? [...waiting.values()] : undefined), 'the gate was asked');
      const pendingAt = performance.now();
      // The human takes longer than the script's whole time limit.
      await waitUntil(() => performance.now() - pendingAt > 1300 || undefined, 'longer than the time limit', 5000);
      entry!.decide(true);
      const result = (await outcome).result.structuredContent as { ok: boolean; error?: unknown };
      assert.equal(result.ok, true, `${language}: ${JSON.stringify(result)}`);
    }
  } finally {
    await codeExecution.close();
    await host.close();
  }
});
