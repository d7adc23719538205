/**
 * The watch rule's one-CPU case end to end (sandbox/watch-rule.mjs): a runtime in a process held
 * to one CPU by its affinity (`taskset -c 0`) never watches for the thread's next frame, while the
 * same runtime with two CPUs does, on a machine the rule sees as idle. Each runtime runs in a child process of its own, since a
 * process's affinity is what the rule reads.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./fixtures/watch-count.ts', import.meta.url));
const taskset = spawnSync('taskset', ['--version']);
const why =
  taskset.error !== undefined ? 'no taskset on this machine (util-linux)' : availableParallelism() < 2 ? 'this process already runs on one CPU' : false;

/** Runs the child (under `taskset -c 0` when `oneCpu`) and returns what it reports. */
function watchCount(oneCpu: boolean): { cpus: number; watches: number; answers: number } {
  const node = [process.execPath, '--import', 'tsx', CHILD];
  const run = oneCpu ? spawnSync('taskset', ['-c', '0', ...node], { encoding: 'utf8' }) : spawnSync(node[0]!, node.slice(1), { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
}

test('a host held to one CPU never watches for the thread; with two it does', { skip: why }, () => {
  const one = watchCount(true);
  assert.equal(one.cpus, 1);
  assert.ok(one.answers >= 200, `the host answered ${one.answers} calls`);
  assert.equal(one.watches, 0, `the host watched after ${one.watches} of ${one.answers} answers on one CPU`);
  const two = watchCount(false);
  assert.ok(two.cpus >= 2);
  assert.equal(two.watches, two.answers, `the host watched after ${two.watches} of ${two.answers} answers on an idle machine`);
});
