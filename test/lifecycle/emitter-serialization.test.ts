/**
 * Issue 13: a lifecycle notification is serialized once per distinct view (grant + filter),
 * not once per observer — and an opening's arguments once, not once for the bound and again
 * for the wire — while the bytes stay those of the plain serialization of its params.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LifecycleEmitter, type ObserverEndpoint } from '../../src/lifecycle/emitter.ts';
import { DeliveryQueue } from '../../src/lifecycle/delivery-queue.ts';
import { lifecycleLine, type LifecycleIdentity } from '../../src/lifecycle/events.ts';
import { computeLifecycleGrant } from '../../src/lifecycle/grants.ts';
import { parseObserveParams } from '../../src/lifecycle/observe-params.ts';
import { lifecycleKey } from '../../src/lifecycle/state-key.ts';
import { call } from './call-facts.ts';

const grant = computeLifecycleGrant({ enabledCapabilities: ['toolLifecycle.observe', 'toolLifecycle.inputs'], toolLifecycle: { inputs: { classes: ['shell'] } } });

function endpoint(id: string, rules: unknown[], lines: string[]): ObserverEndpoint {
  const parsed = parseObserveParams({ rules });
  if (!parsed.ok || parsed.filter === null) throw new Error('bad test filter');
  const filter = parsed.filter;
  const queue = new DeliveryQueue(async (data) => void lines.push(data), (error) => assert.fail(error), { maxCallsPerSecond: Infinity });
  // Computed once, as a connection caches it.
  const state = { grant, filter, key: lifecycleKey(grant, filter) };
  return { id, epoch: 1, queue, lifecycleState: () => state };
}

test('16 observers in two views: one serialization of the identity and one of the arguments per view', async () => {
  const emitter = new LifecycleEmitter(16 * 1024);
  const withInput: string[][] = [];
  const metadataOnly: string[][] = [];
  const endpoints: ObserverEndpoint[] = [];
  for (let i = 0; i < 8; i++) {
    withInput.push([]);
    metadataOnly.push([]);
    endpoints.push(endpoint(`in${i}`, [{ match: {}, input: true }], withInput[i]!));
    endpoints.push(endpoint(`meta${i}`, [{ match: {} }], metadataOnly[i]!));
  }
  for (const e of endpoints) emitter.add(e);
  const identity: LifecycleIdentity = { toolCallId: 'tc_1', inferenceId: 'inf_1', conversationId: 'conv_1', tool: 'x--run', class: ['shell'], serverId: 'x', serverTool: 'run' };
  const facts = call({ input: { cmd: 'ls -la', n: 3 } });

  const stringify = JSON.stringify;
  let serializations = 0;
  JSON.stringify = function (this: unknown, ...args: Parameters<typeof JSON.stringify>) {
    serializations += 1;
    return stringify.apply(this, args);
  } as typeof JSON.stringify;
  try {
    const emitted = emitter.open(identity, facts);
    emitter.terminal(emitted, 'completed', false, 1.5);
  } finally {
    JSON.stringify = stringify;
  }
  // The identity once, the arguments once for the view that asked for them, the duration once.
  assert.equal(serializations, 3, 'serializations do not grow with the number of observers');

  await Promise.all(endpoints.map((e) => e.queue.idle()));
  await new Promise((r) => setImmediate(r));
  await Promise.all(endpoints.map((e) => e.queue.idle()));
  const expectedWithInput =
    lifecycleLine({ ...identity, phase: 'started', input: { cmd: 'ls -la', n: 3 } }) + lifecycleLine({ ...identity, phase: 'completed', isError: false, durationMs: 1.5 });
  const expectedMetadata = lifecycleLine({ ...identity, phase: 'started' }) + lifecycleLine({ ...identity, phase: 'completed', isError: false, durationMs: 1.5 });
  for (const lines of withInput) assert.equal(lines.join(''), expectedWithInput, 'the same bytes as serializing the params');
  for (const lines of metadataOnly) assert.equal(lines.join(''), expectedMetadata);
});
