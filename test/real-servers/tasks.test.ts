/**
 * MCP tasks against the real server-everything: its `simulate-research-query` declares
 * `execution.taskSupport: "required"`, so a plain `tools/call` always fails ("requires task
 * augmentation"). toolcell lists it and calls it as a task — `tools/call` with `params.task`,
 * `tasks/get` until terminal, `tasks/result` — as one call with one started and one terminal
 * lifecycle event; an aborted call sends `tasks/cancel`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { resultText } from '../../src/host/results.ts';
import { makePeer, observePolicy, scratchDir, waitUntil } from '../helpers/peers.ts';
import { officialServer } from './servers.ts';

const TOOL = 'ev--simulate-research-query';

async function connected() {
  const dir = scratchDir();
  const observer = makePeer(dir, 'obs', { observer: true, policy: observePolicy() });
  const everything = officialServer('everything', 'ev');
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  await host.connectServer(observer.config);
  await host.connectServer(everything.config);
  // server-everything registers its task tool after initialization and announces a list change.
  await waitUntil(() => host.listTools().some((t) => t.name === TOOL), `${TOOL} listed`, 15_000);
  return { host, observer, wire: everything.wire };
}

function out(wire: ReturnType<typeof officialServer>['wire'], method: string) {
  return wire.frames.filter((f) => f.direction === 'out' && (f.message as { method?: string }).method === method).map((f) => f.message as { params?: Record<string, unknown> });
}

test('server-everything: a taskSupport "required" tool is listed and called as a task from the model, as one call', async () => {
  const { host, observer, wire } = await connected();
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const progress: { progress: number; message?: string }[] = [];
    const outcome = await host.dispatch({ inferenceId, name: TOOL, input: { topic: 'tide pools' }, onProgress: (p) => progress.push(p) });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    assert.match(resultText(outcome.result), /tide pools/);
    // The task's status messages reach the caller as progress, in order.
    assert.ok(progress.some((p) => p.message === 'Gathering sources...'), JSON.stringify(progress));
    assert.deepEqual(progress.map((p) => p.progress), progress.map((_, i) => i + 1));

    const calls = out(wire, 'tools/call').filter((m) => m.params?.name === 'simulate-research-query');
    assert.equal(calls.length, 1);
    assert.ok(calls[0]!.params!.task && typeof calls[0]!.params!.task === 'object', 'tools/call carried params.task');
    assert.ok(out(wire, 'tasks/get').length >= 1, 'polled tasks/get');
    assert.equal(out(wire, 'tasks/result').length, 1);

    await host.flush();
    const events = await observer.waitFor((e) => e.some((x) => x.event === 'lifecycle' && x.params.phase === 'completed'), 'the terminal');
    const phases = events.filter((x) => x.event === 'lifecycle').map((x) => x.params.phase as string);
    assert.equal(phases.filter((p) => p === 'started').length, 1, phases.join(','));
    assert.equal(phases.filter((p) => p !== 'started' && p !== 'progress').length, 1, phases.join(','));

    const echo = await host.dispatch({ inferenceId, name: 'ev--echo', input: { message: 'still here' } });
    assert.equal(resultText(echo.result), 'Echo: still here');
  } finally {
    await host.close();
  }
});

test('server-everything: aborting a task call sends tasks/cancel for its task', async () => {
  const { host, wire } = await connected();
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const controller = new AbortController();
    const outcome = host.dispatch({ inferenceId, name: TOOL, input: { topic: 'glaciers' }, signal: controller.signal });
    await wire.waitFor((f) => f.direction === 'in' && typeof (f.message as { result?: { task?: { taskId?: unknown } } }).result?.task?.taskId === 'string', 'the CreateTaskResult');
    controller.abort(new Error('user stopped it'));
    assert.equal((await outcome).status, 'aborted');
    const [cancel] = await wire.waitFor((f) => f.direction === 'out' && (f.message as { method?: string }).method === 'tasks/cancel', 'tasks/cancel');
    const created = wire.frames.find((f) => f.direction === 'in' && (f.message as { result?: { task?: unknown } }).result?.task)!;
    assert.equal(
      (cancel!.message as unknown as { params: { taskId: string } }).params.taskId,
      (created.message as unknown as { result: { task: { taskId: string } } }).result.task.taskId,
    );
  } finally {
    await host.close();
  }
});

test('server-everything: a script calls the task tool; the inner call is one call with one started and one terminal event', async () => {
  const { host, wire } = await connected();
  const codeExecution = registerCodeExecution(host, { languages: ['javascript'] });
  const inner: string[] = [];
  host.on('lifecycle', (e) => {
    if (e.origin === 'script' && e.tool === TOOL) inner.push(e.phase);
  });
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({
      inferenceId,
      name: 'code_execution',
      input: { language: 'javascript', code: `const r = await tools['${TOOL}']({ topic: 'coral reefs' }); return JSON.stringify(r);` },
    });
    assert.equal(outcome.status, 'completed', resultText(outcome.result));
    const summary = outcome.result.structuredContent as { ok: boolean; value: unknown };
    assert.equal(summary.ok, true, JSON.stringify(summary));
    assert.match(JSON.stringify(summary), /coral reefs/, JSON.stringify(summary));
    assert.equal(out(wire, 'tasks/result').length, 1);
    assert.equal(inner.filter((p) => p === 'started').length, 1, inner.join(','));
    assert.equal(inner.filter((p) => p !== 'started' && p !== 'progress').length, 1, inner.join(','));
  } finally {
    await codeExecution.close();
    await host.close();
  }
});
