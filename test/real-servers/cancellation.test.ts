/**
 * Cancellation reaches the server. A direct call ended by the stream's end, `interrupt` or
 * its safety timeout sends `notifications/cancelled` for its request, and server-everything's
 * long-running operation never answers it: the SDK server stops the request. (The operation
 * itself writes its progress with `server.notification`, which does not look at the request's
 * signal, so its steps go on; what stops is the request: no result is ever sent.) A script's
 * inner call survives the stream's end, but its own safety timeout cancels it downstream.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText } from '../../src/host/results.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import type { McplConnection } from '../../src/mcpl/connection.ts';
import { officialServer, type WireLog } from './servers.ts';

const silent = () => pino({ level: 'silent' });
const method = (m: string) => (f: WireLog['frames'][number]) => 'method' in f.message && f.message.method === m;

/** The id of the `tools/call` request the host sent for `tool`, once it is on the wire. */
async function requestIdOf(wire: WireLog, tool: string): Promise<string | number> {
  const [frame] = await wire.waitFor((f) => f.direction === 'out' && method('tools/call')(f) && (f.message as any).params.name === tool, `tools/call ${tool}`);
  return (frame!.message as any).id;
}

/**
 * Proves the server stopped the request: waits until the operation would have finished —
 * its last step on the wire (when it reports progress), or else the answer of a longer
 * operation started after it — then for a round trip queued behind that; the server never
 * answered the cancelled request.
 */
async function assertNeverAnswered(wire: WireLog, connection: McplConnection, id: string | number, until: { steps: number } | { host: ToolHost; duration: number }): Promise<void> {
  if ('steps' in until) {
    await wire.waitFor((f) => f.direction === 'in' && method('notifications/progress')(f) && (f.message as any).params.progress === until.steps, 'the last step', 20_000);
  } else {
    const inferenceId = until.host.beginInference({ conversationId: 'barrier' });
    const longer = await until.host.dispatch({ inferenceId, name: 'ev--trigger-long-running-operation', input: { duration: until.duration + 0.5, steps: 2 } });
    assert.equal(longer.status, 'completed');
  }
  await connection.request('ping');
  const answers = wire.frames.filter((f) => f.direction === 'in' && !('method' in f.message) && 'id' in f.message && f.message.id === id);
  assert.deepEqual(answers, [], 'the cancelled request was never answered');
}

function cancellationsOf(wire: WireLog, id: string | number) {
  return wire.frames.filter((f) => f.direction === 'out' && method('notifications/cancelled')(f) && (f.message as any).params.requestId === id);
}

for (const how of ['stream end', 'interrupt'] as const) {
  test(`${how}: the aborted call sends notifications/cancelled and the server never answers it`, async () => {
    const everything = officialServer('everything', 'ev');
    const host = new ToolHost({ logger: silent() });
    const late: string[] = [];
    host.on('late-result', (info) => late.push(info.toolCallId));
    try {
      const connection = await host.connectServer(everything.config);
      const stream = host.openStream(`conv-${how}`);
      const inferenceId = stream.beginInference();
      let progressed!: () => void;
      const firstStep = new Promise<void>((resolve) => (progressed = resolve));
      const outcome = host.dispatch({
        inferenceId,
        name: 'ev--trigger-long-running-operation',
        input: { duration: 1, steps: 10 },
        onProgress: () => progressed(),
      });
      const id = await requestIdOf(everything.wire, 'trigger-long-running-operation');
      await firstStep;
      if (how === 'stream end') stream.end();
      else host.interrupt(`conv-${how}`);
      assert.equal((await outcome).status, 'aborted');
      await everything.wire.waitFor((f) => cancellationsOf(everything.wire, id).includes(f), 'notifications/cancelled on the wire');
      await assertNeverAnswered(everything.wire, connection, id, { steps: 10 });
      assert.deepEqual(late, []);
      // The connection is as good as before.
      const echo = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'x' }), name: 'ev--echo', input: { message: 'still here' } });
      assert.equal(resultText(echo.result), 'Echo: still here');
    } finally {
      await host.close();
    }
  });
}

test("a direct call's safety timeout ends it failed and cancels it downstream", async () => {
  const everything = officialServer('everything', 'ev');
  const host = new ToolHost({ logger: silent() });
  try {
    const connection = await host.connectServer(everything.config);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({
      inferenceId,
      name: 'ev--trigger-long-running-operation',
      input: { duration: 1, steps: 10 },
      timeoutMs: 300,
      onProgress: () => undefined,
    });
    assert.equal(outcome.status, 'failed');
    assert.match(resultText(outcome.result), /timed out after 300 ms/);
    const id = await requestIdOf(everything.wire, 'trigger-long-running-operation');
    assert.equal(cancellationsOf(everything.wire, id).length, 1);
    await assertNeverAnswered(everything.wire, connection, id, { steps: 10 });
  } finally {
    await host.close();
  }
});

test("a script's inner call outlives the stream's end, but its own safety timeout cancels it downstream", async () => {
  const everything = officialServer('everything', 'ev');
  const host = new ToolHost({ logger: silent() });
  // Inner calls give up after 400 + 100 ms.
  const codeExecution = registerCodeExecution(host, { languages: ['javascript'], innerCallTimeoutMs: 400, innerCallGraceMs: 100 });
  try {
    const connection = await host.connectServer(everything.config);
    const stream = host.openStream('conv');
    const inferenceId = stream.beginInference();
    const script = `
const quick = await tools['ev--trigger-long-running-operation']({ duration: 0.2, steps: 2 });
let slow;
try { slow = await tools['ev--trigger-long-running-operation']({ duration: 1, steps: 10 }); } catch (e) { slow = e.message; }
return { quick, slow };`;
    const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: script } });
    assert.equal(outcome.status, 'completed', resultText(outcome.result));
    const value = (outcome.result.structuredContent as any).value;
    assert.match(value.quick, /completed/);
    assert.match(value.slow, /timed out after 500 ms/);
    const calls = everything.wire.frames.filter((f) => f.direction === 'out' && method('tools/call')(f)).slice(0, 2);
    const slowId = (calls[1]!.message as any).id;
    assert.equal(cancellationsOf(everything.wire, slowId).length, 1, 'the timed-out inner call was cancelled downstream');
    assert.equal(cancellationsOf(everything.wire, (calls[0]!.message as any).id).length, 0);
    await assertNeverAnswered(everything.wire, connection, slowId, { host, duration: 1 });

    // The stream's end never aborts an inner call already dispatched: no cancellation for it.
    const before = everything.wire.frames.length;
    const second = host.dispatch({
      inferenceId,
      name: 'code_execution',
      input: { code: `return await tools['ev--trigger-long-running-operation']({ duration: 0.3, steps: 3 });` },
    });
    await everything.wire.waitFor((f) => everything.wire.frames.indexOf(f) >= before && method('tools/call')(f), 'the inner call is on the wire');
    stream.end();
    assert.equal((await second).status, 'aborted');
    const inner = everything.wire.frames.slice(before).find((f) => f.direction === 'out' && method('tools/call')(f))!;
    const innerId = (inner.message as any).id;
    await everything.wire.waitFor((f) => f.direction === 'in' && !('method' in f.message) && (f.message as any).id === innerId, 'the inner call answered');
    assert.equal(cancellationsOf(everything.wire, innerId).length, 0);
  } finally {
    await codeExecution.close();
    await host.close();
  }
});
