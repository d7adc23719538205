/** Choosing the isolation: `bwrap` fails closed, `auto` falls back with one diagnostic, `none` never probes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { IsolationError, probeBwrap, selectIsolation } from '../../../src/runtime/isolation/index.ts';

const works = () => ({ ok: true as const, bwrap: '/usr/bin/bwrap' });
const broken = () => ({ ok: false as const, reason: 'bwrap cannot create a sandbox here (no user namespaces)' });

test("'bwrap' fails closed with a clear error when bubblewrap cannot sandbox here", () => {
  assert.throws(() => selectIsolation('bwrap', { probe: broken }), (e: unknown) => e instanceof IsolationError && /isolation 'bwrap' was required but is unavailable: .*no user namespaces/.test(e.message));
  assert.deepEqual(selectIsolation('bwrap', { probe: works }), { kind: 'bwrap', bwrap: '/usr/bin/bwrap' });
});

test("'auto' says once which isolation it chose, per listener", () => {
  const said: string[] = [];
  const sink = (m: string) => said.push(m);
  assert.deepEqual(selectIsolation('auto', { probe: broken, onDiagnostic: sink }), { kind: 'none' });
  selectIsolation('auto', { probe: broken, onDiagnostic: sink });
  assert.deepEqual(selectIsolation('auto', { probe: works, onDiagnostic: sink }), { kind: 'bwrap', bwrap: '/usr/bin/bwrap' });
  assert.equal(said.length, 2);
  assert.match(said[0]!, /isolation 'auto' chose none: .*no user namespaces.*host user's rights/);
  assert.match(said[1]!, /isolation 'auto' chose bubblewrap/);
});

test("'none' never probes", () => {
  assert.deepEqual(selectIsolation('none', { probe: () => assert.fail('probed') }), { kind: 'none' });
});

test('the probe really runs bubblewrap here and caches its answer; a broken bwrap is reported, not thrown', () => {
  const first = probeBwrap();
  assert.equal(first.ok, true, 'bubblewrap is installed on this machine and in CI');
  assert.equal(probeBwrap(), first, 'cached');
  const missing = probeBwrap('/nonexistent/bwrap');
  assert.equal(missing.ok, false);
  // An executable that is not bwrap (exits non-zero on bwrap's flags) counts as unusable.
  const fake = spawnSync('sh', ['-c', 'command -v false']).stdout.toString().trim();
  const notBwrap = probeBwrap(fake);
  assert.equal(notBwrap.ok, false);
  assert.match((notBwrap as { reason: string }).reason, /cannot create a sandbox here/);
});
