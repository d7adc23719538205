/** The bubblewrap command line as a pure function: every flag the OS layer promises is pinned here. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bwrapArgv, bwrapCommand, checkMounts, type BwrapSpec } from '../../../src/runtime/isolation/index.ts';

const base: BwrapSpec = {
  command: '/opt/py/bin/python3.12',
  args: ['-I', '/app/bootstrap.py', '1000'],
  readOnly: ['/opt/py/lib/python3.12', '/opt/py/bin/python3.12', '/opt/py', '/app'],
  system: { binds: ['/usr/lib', '/etc/ld.so.cache'], symlinks: [['/lib', 'usr/lib']] },
  mounts: [],
  env: { PATH: '/opt/py/bin', HOME: '/tmp' },
  infoFd: 4,
};

/** `[flag, ...operands]` groups in order, e.g. ['--ro-bind', '/a', '/a']. */
function pairs(argv: string[], flag: string, operands: number): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < argv.length; i++) if (argv[i] === flag) out.push(argv.slice(i + 1, i + 1 + operands));
  return out;
}

test('every namespace is new, no capability is kept, and the sandbox dies with the host', () => {
  const argv = bwrapArgv(base);
  for (const flag of ['--unshare-all', '--die-with-parent', '--new-session', '--as-pid-1']) assert.ok(argv.includes(flag), flag);
  assert.deepEqual(pairs(argv, '--cap-drop', 1), [['ALL']]);
  assert.ok(!argv.includes('--share-net'), 'the network namespace is never shared');
});

test('the command and its arguments come last, after a separator', () => {
  const argv = bwrapArgv(base);
  assert.deepEqual(argv.slice(argv.indexOf('--')), ['--', '/opt/py/bin/python3.12', '-I', '/app/bootstrap.py', '1000']);
  assert.deepEqual(pairs(argv, '--info-fd', 1), [['4']]);
  assert.deepEqual(pairs(argv, '--chdir', 1), [['/tmp']]);
});

test('the environment is exactly the one given, and never on the command line (readable by any local user)', () => {
  const secretEnv = { ...base.env, API_KEY: 'sk-do-not-show' };
  const { argv, env } = bwrapCommand({ ...base, env: secretEnv });
  assert.deepEqual(env, secretEnv);
  assert.ok(!argv.some((a) => a.includes('sk-do-not-show')));
  assert.deepEqual(pairs(argv, '--setenv', 2), []);
});

test('the file system: read-only system and interpreter paths (nested ones folded), symlinks, private /proc, /dev, /tmp, read-only root', () => {
  const argv = bwrapArgv(base);
  assert.deepEqual(pairs(argv, '--ro-bind', 2), [
    ['/app', '/app'],
    ['/etc/ld.so.cache', '/etc/ld.so.cache'],
    ['/opt/py', '/opt/py'],
    ['/usr/lib', '/usr/lib'],
  ]);
  assert.deepEqual(pairs(argv, '--symlink', 2), [['usr/lib', '/lib']]);
  assert.deepEqual(pairs(argv, '--proc', 1), [['/proc']]);
  assert.deepEqual(pairs(argv, '--dev', 1), [['/dev']]);
  assert.deepEqual(pairs(argv, '--tmpfs', 1), [['/tmp']]);
  assert.deepEqual(pairs(argv, '--bind', 2), [], 'nothing writable but /tmp without a grant');
  assert.ok(argv.indexOf('--remount-ro') > argv.indexOf('--tmpfs'));
  assert.deepEqual(pairs(argv, '--remount-ro', 1), [['/']]);
});

test('grants: read-only and read-write, at their own path or a target, after /tmp so a grant under /tmp shows', () => {
  const mounts = checkMounts([
    { path: '/srv/data/', mode: 'ro' },
    { path: '/srv/out', mode: 'rw', target: '/tmp/out' },
  ]);
  const argv = bwrapArgv({ ...base, mounts });
  assert.deepEqual(pairs(argv, '--bind', 2), [['/srv/out', '/tmp/out']]);
  assert.deepEqual(pairs(argv, '--ro-bind', 2).at(-1), ['/srv/data', '/srv/data']);
  const tmpfs = argv.indexOf('--tmpfs');
  assert.ok(argv.indexOf('--bind') > tmpfs && argv.lastIndexOf('--ro-bind') > tmpfs);
  assert.ok(argv.indexOf('--remount-ro') > argv.indexOf('--bind'));
});

test('grants are checked: absolute paths, a known mode, no target over /, /proc or /dev', () => {
  assert.throws(() => checkMounts([{ path: 'data', mode: 'ro' }]), /mounts\[0\]\.path must be an absolute path/);
  assert.throws(() => checkMounts([{ path: '/d', mode: 'w' as 'rw' }]), /mounts\[0\]\.mode must be 'ro' or 'rw'/);
  assert.throws(() => checkMounts([{ path: '/d', mode: 'ro', target: '/' }]), /would cover the sandbox's \//);
  assert.throws(() => checkMounts([{ path: '/d', mode: 'ro', target: '/dev/shm' }]), /would cover the sandbox's \/dev/);
  assert.throws(() => checkMounts([{ path: '/d\0', mode: 'ro' }]), /NUL/);
  assert.deepEqual(checkMounts([{ path: '/a/../b/', mode: 'rw' }]), [{ path: '/b', mode: 'rw', target: '/b' }]);
});

test('a read-only path under /tmp (toolcell installed in a temporary project) is bound after the private /tmp, so it shows', () => {
  const argv = bwrapArgv({ ...base, readOnly: [...base.readOnly, '/tmp/project/node_modules/toolcell'] });
  const tmpfs = argv.indexOf('--tmpfs');
  const bind = argv.findIndex((a, i) => a === '--ro-bind' && argv[i + 1] === '/tmp/project/node_modules/toolcell');
  assert.ok(tmpfs > 0 && bind > tmpfs, 'the bind comes after the tmpfs that would hide it');
  assert.ok(argv.indexOf('--ro-bind') < tmpfs, 'paths outside /tmp are still bound before it');
});
