/**
 * Background scripts (issue 43, item 1): `background: true` / `wait_ms`, the `running` answer,
 * `action: "wait" | "status" | "cancel"`, conversation scoping of scriptIds (attack first),
 * the host's `script-finished` event, the lock, the caps and expiry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once, type EventEmitter } from 'node:events';
import { backgroundRig } from './background-rig.ts';
import { UNKNOWN_SCRIPT } from '../../src/code-execution/background/actions.ts';
import { waitUntil } from '../helpers/peers.ts';

const HOLDING = 'await tools.ping({}); const r = await tools.hold({}); return r + "!";';

test('attack: another conversation asking wait/status/cancel for a scriptId gets the unknown-id answer, and the script runs on', async () => {
  const r = backgroundRig();
  try {
    const started = r.envelope(await r.call('alice', { code: HOLDING, background: true, wait_ms: 0 }));
    assert.equal(started.status, 'running');
    assert.match(started.scriptId!, /^scr_[A-Za-z0-9_-]{24}$/);
    const made = await r.call('mallory', { action: 'status', scriptId: 'scr_AAAAAAAAAAAAAAAAAAAAAAAA' });
    for (const action of ['wait', 'status', 'cancel']) {
      const outcome = await r.call('mallory', { action, scriptId: started.scriptId, wait_ms: 0 });
      assert.equal(outcome.result.isError, true);
      assert.equal(r.text(outcome), UNKNOWN_SCRIPT);
      assert.equal(r.text(outcome), r.text(made), 'the same answer as for an id that never existed');
      assert.equal(outcome.result.structuredContent, undefined);
    }
    // Alice's script was not cancelled: it is still running, then finishes with its result.
    assert.equal(r.envelope(await r.call('alice', { action: 'status', scriptId: started.scriptId })).status, 'running');
    await r.release();
    const done = r.envelope(await r.call('alice', { action: 'wait', scriptId: started.scriptId, wait_ms: 60_000 }));
    assert.deepEqual([done.status, done.ok, done.value], ['completed', true, 'let go!']);
  } finally {
    await r.close();
  }
});

test('a background script outlives its call: the call ends "running" once, inner calls keep its ids, wait returns the result', async () => {
  const r = backgroundRig();
  try {
    const inferenceId = r.host.beginInference({ conversationId: 'c' });
    const first = await r.call('c', { code: 'await tools.ping({}); const a = await tools.hold({}); await tools.ping({}); return a;', background: true, wait_ms: 0 }, inferenceId);
    const running = r.envelope(first);
    assert.equal(running.status, 'running');
    assert.equal(first.result.isError, undefined);
    const parent = r.events.find((e) => e.tool === 'code_execution')!.toolCallId;
    const parentTerminals = () => r.events.filter((e) => e.toolCallId === parent && e.phase !== 'started' && e.phase !== 'pending');
    assert.equal(parentTerminals().length, 1, 'the call that answered running has its terminal');
    // The script goes on after its call's terminal: the held call returns, the next ping opens.
    await r.release();
    const done = r.envelope(await r.call('c', { action: 'wait', scriptId: running.scriptId, wait_ms: 60_000 }));
    assert.deepEqual([done.ok, done.value, done.calls.map((c) => c.status)], [true, 'let go', ['ok', 'ok', 'ok']]);
    const inner = r.events.filter((e) => e.origin === 'script');
    assert.equal(inner.filter((e) => e.phase === 'started').length, 3);
    for (const e of inner) {
      assert.equal(e.parentToolCallId, parent);
      assert.equal(e.inferenceId, inferenceId);
    }
    // Exactly one terminal per call, the outer one included.
    const terminals = new Map<string, number>();
    for (const e of r.events) if (e.phase !== 'started' && e.phase !== 'pending') terminals.set(e.toolCallId, (terminals.get(e.toolCallId) ?? 0) + 1);
    assert.ok([...terminals.values()].every((n) => n === 1), JSON.stringify([...terminals]));
    assert.equal(parentTerminals().length, 1);
    // Once the script has stopped, its id is an ended parent again: no call may open under it.
    const late = await r.host.dispatch({ inferenceId, name: 'ping', input: {}, parentToolCallId: parent });
    assert.equal(late.refusal?.code, 'parent_ended');
  } finally {
    await r.close();
  }
});

test('a background script that ends within wait_ms answers like a plain run; status reads a running one', async () => {
  const r = backgroundRig();
  try {
    const quick = r.envelope(await r.call('c', { code: 'return 6 * 7;', background: true, wait_ms: 60_000 }));
    assert.deepEqual([quick.ok, quick.value, quick.status], [true, 42, undefined]);
    const slow = r.envelope(await r.call('c', { code: HOLDING, background: true, wait_ms: 0 }));
    const status = r.envelope(await r.call('c', { action: 'status', scriptId: slow.scriptId }));
    assert.deepEqual([status.status, status.scriptId], ['running', slow.scriptId]);
    await r.release();
    // wait_ms alone also means background; wait bounded by wait_ms answers running again first.
    const finished = await waitUntil(async () => {
      const e = r.envelope(await r.call('c', { action: 'wait', scriptId: slow.scriptId, wait_ms: 1000 }));
      return e.status === 'completed' ? e : undefined;
    }, 'the script to finish', 60_000);
    assert.equal(finished.value, 'let go!');
  } finally {
    await r.close();
  }
});

test('the host emits script-finished for a script that outlived its stream; the result is read in a later turn', async () => {
  const r = backgroundRig();
  try {
    const stream = r.host.openStream('c');
    const running = r.envelope(await r.call('c', { code: HOLDING, background: true, wait_ms: 0 }, stream.beginInference()));
    stream.end('the adapter call is over');
    const finished = once(r.host as unknown as EventEmitter, 'script-finished');
    await r.release();
    const [info] = await finished;
    assert.deepEqual([info.scriptId, info.conversationId, info.status, info.ok], [running.scriptId, 'c', 'completed', true]);
    // The event carries the result the model would read (serve stores it as an MCP task's result).
    assert.deepEqual([info.result.structuredContent?.status, info.result.structuredContent?.value], ['completed', 'let go!']);
    const later = r.host.openStream('c');
    const done = r.envelope(await r.call('c', { action: 'status', scriptId: running.scriptId }, later.beginInference()));
    assert.deepEqual([done.status, done.value], ['completed', 'let go!']);
  } finally {
    await r.close();
  }
});

test('cancel ends a spinning script (its VM is stopped), a neighbour runs meanwhile, and the conversation runs again', async () => {
  const r = backgroundRig();
  try {
    const finished: unknown[] = [];
    r.host.on('script-finished', (info) => finished.push(info));
    const spin = r.envelope(await r.call('a', { code: 'await tools.ping({}); while (true) {}', background: true, wait_ms: 0, time_limit_ms: 120_000 }));
    assert.equal(spin.status, 'running');
    const neighbour = r.envelope(await r.call('b', { code: 'return (await tools.ping({})) + " from b";' }));
    assert.equal(neighbour.value, 'pong from b');
    // While it runs, the conversation's session is held: a new run is refused, naming the script.
    const busy = await r.call('a', { code: 'return 1;' });
    assert.equal(busy.result.isError, true);
    assert.match(r.text(busy), new RegExp(`${spin.scriptId}.*still running`));
    const cancelled = r.envelope(await r.call('a', { action: 'cancel', scriptId: spin.scriptId }));
    assert.deepEqual([cancelled.status, cancelled.ok, cancelled.error?.kind], ['cancelled', false, 'aborted']);
    assert.deepEqual(finished.map((f) => (f as { status: string }).status), ['cancelled']);
    assert.equal(r.ce.background.size.running, 0);
    const again = r.envelope(await r.call('a', { code: 'return "free";' }));
    assert.equal(again.value, 'free');
  } finally {
    await r.close();
  }
});

test('Python: a background script is waited for and cancelled like JavaScript', async () => {
  const r = backgroundRig();
  try {
    const running = r.envelope(await r.call('p', { language: 'python', code: 'await tools.ping({})\nr = await tools.hold({})\nr + "?"', background: true, wait_ms: 0 }));
    assert.equal(running.status, 'running');
    await r.release();
    const done = r.envelope(await r.call('p', { action: 'wait', scriptId: running.scriptId, wait_ms: 60_000 }));
    assert.deepEqual([done.status, done.value], ['completed', 'let go?']);
    const spin = r.envelope(await r.call('p', { language: 'python', code: 'while True:\n    pass', background: true, wait_ms: 0 }));
    const cancelled = r.envelope(await r.call('p', { action: 'cancel', scriptId: spin.scriptId }));
    assert.deepEqual([cancelled.status, cancelled.ok], ['cancelled', false]);
  } finally {
    await r.close();
  }
});

test('bounds: the host cap refuses a background run, results expire with a clear answer, bad input is typed', async () => {
  const r = backgroundRig({ maxBackgroundScripts: 1, backgroundResultMs: 1000, maxWaitMs: 2000 });
  try {
    const first = r.envelope(await r.call('a', { code: HOLDING, background: true, wait_ms: 0 }));
    const capped = await r.call('b', { code: 'return 1;', background: true });
    assert.equal(capped.result.isError, true);
    assert.match(r.text(capped), /background scripts are already running/);
    // Foreground runs are not counted.
    assert.equal(r.envelope(await r.call('b', { code: 'return 1;' })).value, 1);
    const finished = once(r.host as unknown as EventEmitter, 'script-finished');
    await r.release();
    await finished;
    const expired = await waitUntil(async () => {
      const outcome = await r.call('a', { action: 'status', scriptId: first.scriptId });
      return outcome.result.structuredContent === undefined ? outcome : undefined;
    }, 'the result to expire', 60_000);
    assert.match(r.text(expired), /expired/);
    // The expired answer is the owner's alone: another conversation still gets "unknown".
    assert.equal(r.text(await r.call('b', { action: 'status', scriptId: first.scriptId })), UNKNOWN_SCRIPT);
    for (const [input, message] of [
      [{ action: 'wait' }, /needs scriptId/],
      [{ action: 'stop', scriptId: 'x' }, /expected one of "wait", "status", "cancel"/],
      [{ code: 'return 1', wait_ms: -1 }, /wait_ms/],
      [{ code: 'return 1', background: 'yes' }, /background/],
      [{ scriptId: 'x' }, /goes with an action/],
    ] as const) {
      const outcome = await r.call('a', input);
      assert.equal(outcome.result.isError, true);
      assert.match(r.text(outcome), message);
    }
  } finally {
    await r.close();
  }
});

test('ending the conversation cancels its background script and forgets its id', async () => {
  const r = backgroundRig();
  try {
    const running = r.envelope(await r.call('c', { code: HOLDING, background: true, wait_ms: 0 }));
    await r.host.endConversation('c');
    assert.equal(r.ce.background.size.running, 0);
    assert.equal(r.text(await r.call('c', { action: 'status', scriptId: running.scriptId })), UNKNOWN_SCRIPT);
  } finally {
    await r.close();
  }
});
