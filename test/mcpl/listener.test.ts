/**
 * The listen stream's bounds (transports/listener.ts), with the clock mocked: a server that
 * refuses `subscriptions/listen` is asked once; one that fails every stream is asked again with
 * a doubling back-off, at most MAX_LISTEN_FAILURES times, then given up on with a diagnostic; an
 * acknowledgement that does not come in time cancels the stream; a stream that was healthy
 * starts the count over; stop() leaves no timer. The real-server behaviour is listen.test.ts.
 */
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LISTEN_RETRY_BASE_MS, LISTEN_RETRY_MAX_MS, LISTEN_STABLE_MS, Listener, MAX_LISTEN_FAILURES, MAX_SUBSCRIBED_URIS, META_SUBSCRIPTION_ID } from '../../src/mcpl/transports/listener.ts';

type Sent = { id: string; params: { notifications: Record<string, unknown> } };

function harness(ackTimeoutMs = 5_000) {
  const sent: Sent[] = [];
  const cancelled: string[] = [];
  const diagnostics: string[] = [];
  const delivered: JSONRPCMessage[] = [];
  let resumed = 0;
  const listener = new Listener({
    send: async (m) => void sent.push(m as unknown as Sent),
    cancel: (id) => void cancelled.push(id),
    deliver: (m) => void delivered.push(m),
    resumed: () => void (resumed += 1),
    diagnostic: (code) => void diagnostics.push(code),
    ackTimeoutMs,
  });
  const last = () => sent.at(-1)!;
  const ack = (notifications: Record<string, unknown> = { toolsListChanged: true }) =>
    listener.consume({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications, _meta: { [META_SUBSCRIPTION_ID]: last().id } } } as JSONRPCMessage);
  const answer = (result: { error?: { code: number; message: string } } = {}) =>
    listener.consume({ jsonrpc: '2.0', id: last().id, ...(result.error ? { error: result.error } : { result: { resultType: 'complete' } }) } as JSONRPCMessage);
  return { listener, sent, cancelled, diagnostics, delivered, ack, answer, last, resumed: () => resumed };
}

test('a server without subscriptions/listen (-32601) is asked once: no retry, a diagnostic, subscriptions refused', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const h = harness();
    h.listener.start(['toolsListChanged']);
    assert.equal(h.sent.length, 1);
    h.answer({ error: { code: -32601, message: 'Method not found' } });
    assert.deepEqual(h.diagnostics, ['listen-refused']);
    assert.equal(h.listener.status.retrying, false);
    mock.timers.tick(LISTEN_RETRY_MAX_MS * 10);
    assert.equal(h.sent.length, 1, 'never asked again');
    await assert.rejects(h.listener.subscribe('note://a'), /Method not found/);
  } finally {
    mock.timers.reset();
  }
});

test(`a server failing every listen is asked again with a doubling back-off, ${MAX_LISTEN_FAILURES} times in all, then given up on`, () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const h = harness();
    h.listener.start(['toolsListChanged']);
    const waits: number[] = [];
    for (let failure = 1; failure < MAX_LISTEN_FAILURES; failure++) {
      h.answer({ error: { code: -32603, message: 'busy' } });
      assert.equal(h.listener.status.retrying, true);
      const wait = Math.min(LISTEN_RETRY_MAX_MS, LISTEN_RETRY_BASE_MS * 2 ** (failure - 1));
      mock.timers.tick(wait - 1);
      assert.equal(h.sent.length, failure, `not before ${wait} ms`);
      mock.timers.tick(1);
      assert.equal(h.sent.length, failure + 1, `after ${wait} ms`);
      waits.push(wait);
    }
    h.answer({ error: { code: -32603, message: 'busy' } });
    assert.deepEqual(h.diagnostics, ['listen-gave-up']);
    assert.equal(h.listener.status.retrying, false);
    mock.timers.tick(LISTEN_RETRY_MAX_MS * 10);
    assert.equal(h.sent.length, MAX_LISTEN_FAILURES, 'no listen after giving up');
    assert.deepEqual(waits, [500, 1000, 2000, 4000, 8000, 16000, 30000]);
  } finally {
    mock.timers.reset();
  }
});

test('an acknowledgement that does not come in time cancels the stream and counts as a failure', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const h = harness(5_000);
    h.listener.start(['toolsListChanged']);
    const first = h.last().id;
    mock.timers.tick(5_000);
    assert.deepEqual(h.cancelled, [first]);
    assert.equal(h.listener.status.retrying, true);
    mock.timers.tick(LISTEN_RETRY_BASE_MS);
    assert.equal(h.sent.length, 2);
    // The late acknowledgement of the cancelled stream is not taken for the new one.
    h.listener.consume({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: { [META_SUBSCRIPTION_ID]: first } } } as JSONRPCMessage);
    assert.equal(h.listener.status.listening, false);
  } finally {
    mock.timers.reset();
  }
});

test('a stream that was healthy starts the count over; after a gap the owner is told once; stop() leaves no timer and cancels the stream', () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  try {
    const h = harness();
    h.listener.start(['toolsListChanged']);
    for (let round = 0; round < MAX_LISTEN_FAILURES + 2; round++) {
      h.ack();
      assert.equal(h.listener.status.listening, true);
      // A notification on the current stream is delivered without the stream's tag.
      h.listener.consume({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [META_SUBSCRIPTION_ID]: h.last().id } } } as JSONRPCMessage);
      mock.timers.tick(LISTEN_STABLE_MS);
      h.answer();
      mock.timers.tick(LISTEN_RETRY_BASE_MS);
    }
    assert.equal(h.sent.length, MAX_LISTEN_FAILURES + 3, 'healthy streams are always opened again');
    assert.deepEqual(h.diagnostics, []);
    assert.equal(h.resumed(), MAX_LISTEN_FAILURES + 1, 'each re-opened stream after a gap');
    assert.deepEqual(h.delivered[0], { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: {} });
    // A stream ending while its replacement waits to be opened: stop() clears the wait.
    h.ack();
    h.answer();
    assert.equal(h.listener.status.retrying, true);
    h.listener.stop();
    assert.equal(h.listener.status.retrying, false);
    mock.timers.tick(LISTEN_RETRY_MAX_MS * 10);
    assert.equal(h.sent.length, MAX_LISTEN_FAILURES + 3, 'nothing after stop');
    // Stopped while a stream is open: it is cancelled.
    const open = harness();
    open.listener.start(['toolsListChanged']);
    open.ack();
    open.listener.stop();
    assert.deepEqual(open.cancelled, [open.last().id]);
    assert.deepEqual(open.listener.status, { listening: false, pending: false, retrying: false, subscriptionId: undefined, uris: [] });
  } finally {
    mock.timers.reset();
  }
});

test(`a connection subscribes to at most ${MAX_SUBSCRIBED_URIS} resources: one more is refused and nothing is sent for it`, async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const h = harness();
    h.listener.start([]);
    const taken: Promise<void>[] = [];
    for (let i = 0; i < MAX_SUBSCRIBED_URIS; i++) taken.push(h.listener.subscribe(`note://${i}`));
    const sent = h.sent.length;
    await assert.rejects(h.listener.subscribe('note://one-more'), /at most 256 resources/);
    assert.equal(h.sent.length, sent, 'no listen for the refused one');
    h.ack({ resourceSubscriptions: Array.from({ length: MAX_SUBSCRIBED_URIS }, (_, i) => `note://${i}`) });
    await Promise.all(taken);
    assert.equal(h.listener.status.uris.length, MAX_SUBSCRIBED_URIS);
    assert.equal((h.last().params.notifications.resourceSubscriptions as string[]).length, MAX_SUBSCRIBED_URIS);
  } finally {
    mock.timers.reset();
  }
});

test('a subscription the server leaves out of its acknowledgement is refused and not asked for again', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const h = harness();
    h.listener.start(['toolsListChanged']);
    h.ack();
    const asked = h.listener.subscribe('note://a');
    assert.deepEqual(h.last().params.notifications, { toolsListChanged: true, resourceSubscriptions: ['note://a'] });
    h.ack({ toolsListChanged: true });
    await assert.rejects(asked, /did not take a subscription to note:\/\/a/);
    assert.deepEqual(h.listener.status.uris, []);
  } finally {
    mock.timers.reset();
  }
});

test('a filter refused for its URIs (-32602, as serve refuses more than 64) drops those subscriptions, not the list changes', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const h = harness();
    h.listener.start(['toolsListChanged']);
    h.ack();
    const first = h.last().id;
    const asked = h.listener.subscribe('note://a');
    h.answer({ error: { code: -32602, message: 'Invalid params: too many resources' } });
    await assert.rejects(asked, /too many resources/);
    assert.deepEqual(h.diagnostics, ['listen-subscriptions-refused']);
    assert.deepEqual(h.listener.status.uris, []);
    assert.equal(h.listener.status.subscriptionId, first, 'the stream of list changes goes on');
    // Still listening: a later subscription is asked for.
    const later = h.listener.subscribe('note://b');
    h.ack({ toolsListChanged: true, resourceSubscriptions: ['note://b'] });
    await later;
  } finally {
    mock.timers.reset();
  }
});
