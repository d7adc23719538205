/** How caps are checked, and how each is enforced with the means a host has (pure decisions). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkCaps, formatBytes, planCaps, prlimitOptions, PYTHON_CAPS } from '../../../src/runtime/isolation/caps.ts';

const means = { memory: 'address-space' as const, bwrap: true, root: false, cgroup: false, prlimit: true };

test('caps: defaults fill what is left out; bad values and unknown keys are named', () => {
  assert.deepEqual(checkCaps(undefined, PYTHON_CAPS), PYTHON_CAPS);
  assert.deepEqual(checkCaps({ cpuSeconds: 5 }, PYTHON_CAPS), { ...PYTHON_CAPS, cpuSeconds: 5 });
  assert.equal(checkCaps({ processes: Infinity }, PYTHON_CAPS).processes, Infinity);
  assert.throws(() => checkCaps({ processes: 0 }, PYTHON_CAPS), /caps\.processes must be a whole number of at least 1/);
  assert.throws(() => checkCaps({ memoryBytes: 1024 }, PYTHON_CAPS), /caps\.memoryBytes must be a whole number of at least 67108864/);
  assert.throws(() => checkCaps({ cpuSeconds: 1.5 }, PYTHON_CAPS), /caps\.cpuSeconds/);
  assert.throws(() => checkCaps({ memory: 1 } as never, PYTHON_CAPS), /caps\.memory is not a cap/);
});

test('caps: prlimit options per memory measure; the CPU hard limit is a second past the soft one', () => {
  assert.deepEqual(prlimitOptions(PYTHON_CAPS, 'address-space', true), ['--as=1073741824', '--cpu=600:601', '--nproc=64']);
  assert.deepEqual(prlimitOptions({ ...PYTHON_CAPS, cpuSeconds: Infinity }, 'data', false), ['--data=1073741824']);
});

test('caps: the process cap is a cgroup where one can be made, RLIMIT_NPROC only in a user namespace of a non-root user', () => {
  assert.deepEqual(planCaps(PYTHON_CAPS, { ...means, cgroup: true }), { rlimits: ['--as=1073741824', '--cpu=600:601'], pidsCgroup: true, unenforced: [] });
  assert.deepEqual(planCaps(PYTHON_CAPS, means).rlimits, ['--as=1073741824', '--cpu=600:601', '--nproc=64']);
  const root = planCaps(PYTHON_CAPS, { ...means, root: true });
  assert.equal(root.pidsCgroup, false);
  assert.match(root.unenforced.join(), /never applies RLIMIT_NPROC to root/);
  const plain = planCaps(PYTHON_CAPS, { ...means, bwrap: false });
  assert.ok(!plain.rlimits.some((o) => o.startsWith('--nproc')), 'RLIMIT_NPROC outside a user namespace counts every process of the user');
  assert.match(plain.unenforced.join('\n'), /all of this user's processes/);
  const bare = planCaps(PYTHON_CAPS, { ...means, prlimit: false });
  assert.deepEqual(bare.rlimits, []);
  assert.match(bare.unenforced.join(), /prlimit \(util-linux\) was not found/);
});

test('caps: sizes are named in whole units', () => {
  assert.equal(formatBytes(1024 ** 3), '1 GiB');
  assert.equal(formatBytes(64 * 1024 ** 2), '64 MiB');
  assert.equal(formatBytes(1536 * 1024), '1536 KiB');
  assert.equal(formatBytes(100), '100 bytes');
});
