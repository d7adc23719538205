/**
 * Tasks of the 2026 tasks extension with the SQLite store, one `toolcell serve --http` process
 * SIGKILLed and started again in place on the same file (docs/durable.md, "Tasks of the 2026
 * tasks extension"): a task that ended before the crash is still answered with its result; a
 * task whose call was running reads `failed` ("its instance stopped") and never runs again; a task
 * waiting for toolcell's approval was parked in the file and is resumed by the restarted process
 * when approved (the call before the pause not run again); another caller gets exactly the
 * unknown-id answer; a task cancelled before the crash stays cancelled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePeer, scratchDir, waitUntil } from '../helpers/peers.ts';
import { postFrom, startServe } from './serve-process.ts';

const shape = (body: any) => ({ status: body.error ? 'error' : 'result', error: body.error, result: body.result });

test('sqlite store: 2026 tasks outlive a SIGKILL and a restart in place — ended ones keep their outcome, a running one reads failed and never runs again, a parked one is approved after the restart', async () => {
  const dir = scratchDir();
  const held = join(dir, 'never-created');
  const peer = makePeer(dir, 'x', { tools: [{ name: 'count', classes: ['read'] }, { name: 'send', classes: ['comms'] }] });
  const calls = (name: string) => peer.events().filter((e) => e.event === 'call' && e.params?.name === name);
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({ servers: [peer.config], codeExecution: { languages: ['javascript'] }, approvals: { classes: ['comms'] }, store: 'sqlite:./runs.db' }));
  let serve = await startServe(configPath);
  const start = async (code: string) => {
    const created = await postFrom(serve.url, 'tools/call', { name: 'code_execution', arguments: { code } });
    assert.equal(created.body.result?.resultType, 'task', JSON.stringify(created.body));
    return created.body.result.taskId as string;
  };
  const get = async (taskId: string) => {
    const got = await postFrom(serve.url, 'tasks/get', { taskId });
    assert.equal(got.body.error, undefined, JSON.stringify(got.body));
    return got.body.result;
  };
  const reaches = (taskId: string, statuses: string[]) =>
    waitUntil(async () => {
      const task = await get(taskId);
      return statuses.includes(task.status) ? task : undefined;
    }, `task ${taskId} to reach ${statuses.join(' or ')}`, 60_000);
  try {
    const finished = await start(`return (await tools.x__count({ i: 1 })).args.i * 10;`);
    assert.equal((await reaches(finished, ['completed', 'failed', 'cancelled'])).status, 'completed');
    const cancelled = await start(`await tools.x__count({ i: 2, hold_file: ${JSON.stringify(held)} }); return 'never';`);
    await peer.waitFor(() => calls('count').length === 2, 'the first held call to start', 60_000);
    assert.equal((await postFrom(serve.url, 'tasks/cancel', { taskId: cancelled })).body.result?.resultType, 'complete');
    const running = await start(`await tools.x__count({ i: 3, hold_file: ${JSON.stringify(held)} }); return 'never';`);
    await peer.waitFor(() => calls('count').length === 3, 'the second held call to start', 60_000);
    const waiting = await start(`const a = (await tools.x__count({ i: 4 })).args.i; const name = ['x', 'send'].join('__'); await tools[name]({ to: 'ada', after: a }); return 'sent ' + a;`);
    const asked = await reaches(waiting, ['input_required', 'completed', 'failed', 'cancelled']);
    assert.equal(asked.status, 'input_required', JSON.stringify(asked));
    const [key] = Object.keys(asked.inputRequests);

    await serve.kill('SIGKILL');
    serve = await startServe(configPath);

    const kept = await get(finished);
    assert.equal(kept.status, 'completed');
    assert.equal(kept.result.structuredContent.value, 10, 'the outcome is read from the file after the restart');
    assert.equal((await get(cancelled)).status, 'cancelled');
    const lost = await get(running);
    assert.equal(lost.status, 'failed', JSON.stringify(lost));
    assert.match(lost.statusMessage, /instance stopped \(its process is gone\) while the task was working; its outcome is unknown, and it was not run again/);
    // The parked task waits in the file; its approval, given to the restarted process, resumes it by replay.
    const parked = await get(waiting);
    assert.equal(parked.status, 'input_required', JSON.stringify(parked));
    assert.deepEqual(Object.keys(parked.inputRequests), [key]);
    assert.equal(calls('send').length, 0);
    const answered = await postFrom(serve.url, 'tasks/update', { taskId: waiting, inputResponses: { [key!]: { action: 'accept', content: {} } } });
    assert.equal(answered.body.result?.resultType, 'complete', JSON.stringify(answered.body));
    const sent = await reaches(waiting, ['completed', 'failed', 'cancelled']);
    assert.equal(sent.result?.structuredContent?.value, 'sent 4', JSON.stringify(sent));
    // A late answer to the ended task is ignored.
    assert.equal((await postFrom(serve.url, 'tasks/update', { taskId: waiting, inputResponses: { [key!]: { action: 'accept', content: {} } } })).body.result?.resultType, 'complete');
    // Another caller gets exactly the unknown-id answer for a stored task.
    const theirs = await postFrom(serve.url, 'tasks/get', { taskId: finished }, '127.0.0.2');
    const none = await postFrom(serve.url, 'tasks/get', { taskId: 'task_AAAAAAAAAAAAAAAAAAAAAAAA' }, '127.0.0.2');
    assert.equal(theirs.body.error?.code, -32602);
    assert.deepEqual(shape(theirs.body), shape(none.body));
    assert.deepEqual(calls('count').map((c) => c.params.arguments.i), [1, 2, 3, 4], 'each counted call ran exactly once');
    assert.deepEqual(calls('send').map((c) => c.params.arguments), [{ to: 'ada', after: 4 }], 'the approved call ran once');
    // The restarted instance runs new tasks as before.
    const next = await start(`return 'after';`);
    assert.equal((await reaches(next, ['completed'])).result.structuredContent.value, 'after');
  } finally {
    await serve.kill('SIGTERM');
  }
});
