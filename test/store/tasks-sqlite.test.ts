/**
 * Tasks of the 2026 tasks extension with the SQLite store, one `toolcell serve --http` process
 * SIGKILLed and started again in place on the same file (docs/durable.md, "Tasks of the 2026
 * tasks extension"): a task that ended before the crash is still answered with its result; a
 * task whose call was running and one waiting for approval read `failed` ("its instance
 * stopped"), and neither runs again nor runs its unapproved call; another caller gets exactly
 * the unknown-id answer; a task cancelled before the crash stays cancelled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePeer, scratchDir, waitUntil } from '../helpers/peers.ts';
import { postFrom, startServe } from './serve-process.ts';

const shape = (body: any) => ({ status: body.error ? 'error' : 'result', error: body.error, result: body.result });

test('sqlite store: 2026 tasks outlive a SIGKILL and a restart in place — ended ones keep their outcome, cut-off ones read failed and never run again', async () => {
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
    const waiting = await start(`await tools.x__send({ to: 'ada' }); return 'sent';`);
    const asked = await reaches(waiting, ['input_required', 'completed', 'failed', 'cancelled']);
    assert.equal(asked.status, 'input_required', JSON.stringify(asked));
    const [key] = Object.keys(asked.inputRequests);

    await serve.kill('SIGKILL');
    serve = await startServe(configPath);

    const kept = await get(finished);
    assert.equal(kept.status, 'completed');
    assert.equal(kept.result.structuredContent.value, 10, 'the outcome is read from the file after the restart');
    assert.equal((await get(cancelled)).status, 'cancelled');
    for (const [taskId, was] of [[running, 'working'], [waiting, 'input_required']] as const) {
      const lost = await get(taskId);
      assert.equal(lost.status, 'failed', JSON.stringify(lost));
      assert.match(lost.statusMessage, new RegExp(`instance stopped \\(its process is gone\\) while the task was ${was}; its outcome is unknown, and it was not run again`));
      assert.equal(lost.inputRequests, undefined);
    }
    // The approval cannot be given any more (fail closed): the answer is ignored, nothing runs.
    const late = await postFrom(serve.url, 'tasks/update', { taskId: waiting, inputResponses: { [key!]: { action: 'accept', content: {} } } });
    assert.equal(late.body.result?.resultType, 'complete', JSON.stringify(late.body));
    assert.equal((await get(waiting)).status, 'failed');
    // Another caller gets exactly the unknown-id answer for a stored task.
    const theirs = await postFrom(serve.url, 'tasks/get', { taskId: finished }, '127.0.0.2');
    const none = await postFrom(serve.url, 'tasks/get', { taskId: 'task_AAAAAAAAAAAAAAAAAAAAAAAA' }, '127.0.0.2');
    assert.equal(theirs.body.error?.code, -32602);
    assert.deepEqual(shape(theirs.body), shape(none.body));
    assert.equal(calls('count').length, 3, 'nothing ran again');
    assert.equal(calls('send').length, 0, 'the unapproved call never ran');
    // The restarted instance runs new tasks as before.
    const next = await start(`return 'after';`);
    assert.equal((await reaches(next, ['completed'])).result.structuredContent.value, 'after');
  } finally {
    await serve.kill('SIGTERM');
  }
});
