/**
 * A stalled observer's queue: bounded in bytes as well as in messages (issue 9, item 5), and
 * its drop counter counts exactly the calls it would have received (item 4) — never a call its
 * grant or filter excluded anyway.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MAX_QUEUED_BYTES, DeliveryQueue } from '../../src/lifecycle/delivery-queue.ts';
import { LifecycleEmitter, type ObserverEndpoint } from '../../src/lifecycle/emitter.ts';
import { computeLifecycleGrant } from '../../src/lifecycle/grants.ts';
import { parseObserveParams } from '../../src/lifecycle/observe-params.ts';
import { lifecycleKey } from '../../src/lifecycle/state-key.ts';
import type { CompiledFilter } from '../../src/lifecycle/decision-types.ts';
import { call } from './call-facts.ts';

/** A transport that accepts writes into a list and answers each only when told to. */
function stalledTransport() {
  const written: string[] = [];
  const answers: (() => void)[] = [];
  return {
    written,
    write: (data: string) => {
      written.push(data);
      return new Promise<void>((resolve) => answers.push(resolve));
    },
    unstall: () => {
      for (const a of answers.splice(0)) a();
    },
  };
}

function filter(rules: unknown[]): CompiledFilter {
  const r = parseObserveParams({ rules });
  if (!r.ok || r.filter === null) throw new Error('bad test filter');
  return r.filter;
}

function endpoint(queue: DeliveryQueue, f: CompiledFilter | null): ObserverEndpoint {
  const grant = computeLifecycleGrant({ enabledCapabilities: ['toolLifecycle.observe', 'toolLifecycle.inputs'], toolLifecycle: { inputs: { tools: ['*'] } } });
  const key = lifecycleKey(grant, f);
  return { id: 'obs', epoch: 1, queue, lifecycleState: () => ({ grant, filter: f, key }) };
}

const identity = (n: number, tool: string) => ({ toolCallId: `tc_${n}`, inferenceId: 'inf', conversationId: 'conv_1', tool, class: [] });

test('a full queue counts as dropped only the calls its filter would have let through', () => {
  const transport = stalledTransport();
  const queue = new DeliveryQueue(transport.write, () => {}, { maxQueued: 2, maxCallsPerSecond: Infinity });
  const emitter = new LifecycleEmitter(16 * 1024);
  emitter.add(endpoint(queue, filter([{ match: { class: 'shell' } }])));
  // Two shell calls fill the queue (nothing is written within this tick).
  for (const n of [1, 2]) emitter.open(identity(n, 'x--run'), call());
  // While it is full: three web calls the filter excludes, and two shell calls it admits.
  for (const n of [3, 4, 5]) emitter.open(identity(n, 'x--get'), call({ tool: 'x--get', serverTool: 'get', classes: ['web'] }));
  for (const n of [6, 7]) emitter.open(identity(n, 'x--run'), call());
  assert.equal(queue.stats.droppedCalls, 2, 'only the two shell calls were lost');
});

test('the rate budget, too, counts only calls the observer would have received', () => {
  const transport = stalledTransport();
  const queue = new DeliveryQueue(transport.write, () => {}, { maxCallsPerSecond: 1 });
  const emitter = new LifecycleEmitter(16 * 1024);
  emitter.add(endpoint(queue, filter([{ match: { class: 'shell' } }])));
  emitter.open(identity(1, 'x--run'), call());
  for (const n of [2, 3, 4]) emitter.open(identity(n, 'x--get'), call({ tool: 'x--get', serverTool: 'get', classes: ['web'] }));
  emitter.open(identity(5, 'x--run'), call());
  assert.equal(queue.stats.droppedCalls, 1);
});

test('the queue is bounded in bytes: big openings are dropped whole, terminals of queued ones always follow', async () => {
  const transport = stalledTransport();
  const queue = new DeliveryQueue(transport.write, () => {}, { maxQueuedBytes: 50_000, maxCallsPerSecond: Infinity });
  const emitter = new LifecycleEmitter(16 * 1024);
  emitter.add(endpoint(queue, filter([{ match: {}, input: true }])));
  const big = { blob: 'x'.repeat(15_000) };
  const calls = [];
  for (let n = 1; n <= 10; n++) calls.push(emitter.open(identity(n, 'x--run'), call({ input: big })));
  const delivered = calls.filter((c) => c.deliveries.length === 1).length;
  assert.equal(delivered, 3, 'three 15 KB openings fit in 50,000 characters');
  assert.equal(queue.stats.droppedCalls, 7, 'the rest were dropped whole and counted');
  assert.ok(queue.stats.highWaterBytes <= 50_000, `at most the bound was held (${queue.stats.highWaterBytes})`);
  for (const c of calls) emitter.terminal(c, 'completed', undefined, 1);
  assert.equal(queue.stats.queued, 6, 'three openings and their three terminals');
  // Once the observer reads again, the queue drains and accepts new calls.
  await new Promise((resolve) => setImmediate(resolve));
  transport.unstall();
  await queue.idle();
  assert.equal(queue.stats.queuedBytes, 0);
  const after = emitter.open(identity(11, 'x--run'), call({ input: big }));
  assert.equal(after.deliveries.length, 1);
  const sent = transport.written.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l).params);
  assert.deepEqual(
    sent.map((p) => `${p.toolCallId}:${p.phase}`),
    ['tc_1:started', 'tc_2:started', 'tc_3:started', 'tc_1:completed', 'tc_2:completed', 'tc_3:completed'],
    'whole calls only: every opening sent has its terminal, nothing of the dropped ones',
  );
});

test('by default the size bound governs: a burst of small calls is not cut by a message count', () => {
  const transport = stalledTransport();
  // Defaults but for the rate budget, lifted: only the 16 MiB size bound applies.
  const queue = new DeliveryQueue(transport.write, () => {}, { maxCallsPerSecond: Infinity });
  const emitter = new LifecycleEmitter(16 * 1024);
  emitter.add(endpoint(queue, filter([{ match: {}, input: true }])));
  // 15,000 calls with small inputs, both phases, within one tick: 30,000 messages of ~200 characters.
  for (let n = 1; n <= 15_000; n++) emitter.terminal(emitter.open(identity(n, 'x--run'), call({ input: { n } })), 'completed', undefined, 1);
  assert.equal(queue.stats.droppedCalls, 0, 'no call dropped: 30,000 small messages are far from 16 MiB');
  assert.equal(queue.stats.queued, 30_000);
  assert.ok(queue.stats.queuedBytes < DEFAULT_MAX_QUEUED_BYTES / 2, `${queue.stats.queuedBytes} characters queued`);
});

test('the default size bound still bounds a stuck observer: big calls are dropped once 16 MiB wait', () => {
  const transport = stalledTransport();
  const queue = new DeliveryQueue(transport.write, () => {}, { maxCallsPerSecond: Infinity });
  const emitter = new LifecycleEmitter(16 * 1024);
  emitter.add(endpoint(queue, filter([{ match: {}, input: true }])));
  const big = { blob: 'x'.repeat(15_000) };
  for (let n = 1; n <= 2_000; n++) emitter.open(identity(n, 'x--run'), call({ input: big }));
  assert.ok(queue.stats.droppedCalls > 800, `${queue.stats.droppedCalls} dropped`);
  assert.ok(queue.stats.highWaterBytes <= DEFAULT_MAX_QUEUED_BYTES, `held ${queue.stats.highWaterBytes}`);
});
