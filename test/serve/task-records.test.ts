/**
 * The task records both eras' task surfaces share (src/serve/task-records.ts): an owner sees its
 * own tasks only, holds at most MAX_TASKS_PER_OWNER (the oldest finished one makes room; all
 * running: refused), the first end wins, and a task that outlives its ttl is cancelled and
 * dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TASK_TTL_MS, MAX_TASKS_PER_OWNER, TaskRecords } from '../../src/serve/task-records.ts';
import { waitUntil } from '../helpers/peers.ts';

test('task records: another owner finds nothing; ids are distinct and random-looking', () => {
  const records = new TaskRecords<string>();
  const a = records.create('caller-a');
  const b = records.create('caller-b');
  assert.notEqual(a.state.taskId, b.state.taskId);
  assert.match(a.state.taskId, /^task_[A-Za-z0-9_-]{24}$/);
  assert.equal(records.find(a.state.taskId, 'caller-a'), a);
  assert.equal(records.find(a.state.taskId, 'caller-b'), undefined);
  assert.deepEqual(records.of('caller-b'), [b]);
  for (const r of [a, b]) records.remove(r.state.taskId);
});

test('task records: an owner holds at most MAX_TASKS_PER_OWNER; a finished one makes room, all running is refused; other owners are not affected', () => {
  const records = new TaskRecords<string>();
  const mine = Array.from({ length: MAX_TASKS_PER_OWNER }, () => records.create('a'));
  assert.match(records.refusal('a', 'this client') ?? '', new RegExp(`this client has ${MAX_TASKS_PER_OWNER} tasks running`));
  assert.equal(records.refusal('b', 'this client'), undefined, "a's cap does not stop b");
  assert.ok(records.move(mine[3]!, 'completed', 'done'));
  assert.equal(records.refusal('a', 'this client'), undefined);
  assert.equal(records.find(mine[3]!.state.taskId, 'a'), undefined, 'the oldest finished task made room');
  assert.equal(records.of('a').length, MAX_TASKS_PER_OWNER - 1);
  for (const r of records.of('a')) records.remove(r.state.taskId);
});

test('task records: the first end wins; a ttl above the cap is capped', () => {
  const records = new TaskRecords<string>();
  const r = records.create('a', MAX_TASK_TTL_MS * 10);
  assert.equal(r.state.ttlMs, MAX_TASK_TTL_MS);
  assert.ok(records.move(r, 'cancelled', undefined, 'by the client'));
  assert.equal(records.move(r, 'completed', 'late result'), false);
  assert.equal(r.state.status, 'cancelled');
  assert.equal(r.end, undefined);
  records.remove(r.state.taskId);
});

test('task records: a task still running at its ttl is cancelled and dropped', async () => {
  const records = new TaskRecords<string>();
  let cancelled = 0;
  const r = records.create('a', 50);
  r.cancel = () => void (cancelled += 1);
  await waitUntil(() => (records.find(r.state.taskId, 'a') === undefined ? true : undefined), 'the task to expire', 10_000);
  assert.equal(cancelled, 1);
});
