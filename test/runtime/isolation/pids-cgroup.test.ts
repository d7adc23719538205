/**
 * The pids cgroup behind the process cap: a command entered through it is counted from its
 * first instruction, a fork past the cap is refused and recorded, the group goes once empty, and
 * groups a dead host left behind are swept. Needs a writable pids hierarchy (root here).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PidsGroup, pidsHierarchy } from '../../../src/runtime/isolation/pids-cgroup.ts';
import { waitFor } from '../../security/python-helpers.ts';

const root = pidsHierarchy();
const skip = root === null ? 'no writable pids cgroup hierarchy here' : false;

test('a command entered through its group cannot hold more tasks than the cap', { skip }, async () => {
  const group = PidsGroup.create(4)!;
  assert.ok(group);
  const [sh, ...pre] = group.enterArgv(false);
  // Each `sleep &` is a task; the fifth (the shell itself is one) is refused.
  const child = spawn(sh!, [...pre, '/bin/sh', '-c', 'for i in 1 2 3 4 5 6; do sleep 30 & done 2>/dev/null; wait'], { stdio: 'ignore' });
  // Listened for at once: the shell may exit at its refused fork before the waits below end.
  const exited = once(child, 'exit');
  // The shell may exit at the refused fork, so the count is read once a refusal is recorded.
  await waitFor('a fork past the cap to be refused', () => group.refusedAny());
  const held = Number(fs.readFileSync(path.join(group.dir, 'pids.current'), 'utf8'));
  assert.ok(held >= 3 && held <= 4, `${held} tasks in the group`);
  for (const pid of fs.readFileSync(path.join(group.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) process.kill(Number(pid), 'SIGKILL');
  await exited;
  group.remove();
  await waitFor('the empty group to go', () => !fs.existsSync(group.dir));
});

test("groups left by a host that is gone are swept when the next host finds the hierarchy", { skip }, () => {
  const dead = spawnSync('true').pid!;
  const stale = path.join(root!, `toolcell-${dead}-1`);
  fs.mkdirSync(stale);
  const probe = spawnSync(process.execPath, ['--import', 'tsx', '-e', `import(${JSON.stringify(new URL('../../../src/runtime/isolation/pids-cgroup.ts', import.meta.url).href)}).then((m) => m.pidsHierarchy())`], { encoding: 'utf8' });
  assert.equal(probe.status, 0, probe.stderr);
  const left = fs.existsSync(stale);
  if (left) fs.rmdirSync(stale);
  assert.equal(left, false, 'the stale group is still there');
});
