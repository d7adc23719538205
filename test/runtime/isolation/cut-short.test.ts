/**
 * A sandbox start cut short between bwrap's fork and its exec (a run aborted, a pool closed, the
 * moment after spawn) used to leave bwrap's child asleep forever, reparented to init: killing
 * bwrap alone reached it before its parent-death signal was set. Every kill, at every moment of
 * the start, must leave no process behind.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { probeBwrap, ScriptProcess, selectIsolation } from '../../../src/runtime/isolation/index.ts';
import { SandboxProcess } from '../../../src/runtime/js/sandbox-process.ts';
import { processesWith, waitFor } from '../../security/python-helpers.ts';

const bwrap = probeBwrap();
const skip = bwrap.ok ? false : 'bubblewrap does not work here';

test('a bwrap start killed at any moment leaves no process behind', { skip }, async () => {
  const marker = `cut-short-${process.pid}`;
  const sleep = fs.realpathSync('/usr/bin/sleep');
  const isolation = selectIsolation('bwrap');
  const exits: Promise<unknown>[] = [];
  for (let i = 0; i < 96; i++) {
    const p = new ScriptProcess({ isolation, command: sleep, args: ['60', marker], readOnly: [sleep], env: {}, stdio: ['ignore', 'ignore', 'ignore'], detached: i % 2 === 0 });
    exits.push(once(p.child, 'exit'));
    // At once, and a few milliseconds in: both before bwrap reports its child's pid.
    const kill = () => (i % 3 === 0 ? p.killAll() : p.child.kill('SIGKILL'));
    if (i % 4 === 0) kill();
    else setTimeout(kill, i % 4);
  }
  await Promise.all(exits);
  // A killed process is gone within moments; one left asleep stays until the bound.
  await waitFor('every process of the cut-short starts to be gone', () => processesWith(marker).length === 0, 5_000).catch(() => {});
  const left = processesWith(marker);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  assert.deepEqual(left, [], `${left.length} processes outlived their start`);
});

test('a JavaScript sandbox process stopped right after spawn leaves no process behind', { skip }, async () => {
  // The entry through a link of its own, so this test's processes are told from any other's.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cut-short-js-'));
  const entry = path.join(dir, 'main.mjs');
  fs.symlinkSync(fileURLToPath(new URL('../../../src/runtime/js/engines/v8/main.mjs', import.meta.url)), entry);
  try {
    const stops: Promise<void>[] = [];
    for (let i = 0; i < 12; i++) {
      const p = new SandboxProcess({ engine: 'v8', heapMb: 64, isolation: 'bwrap', entry });
      if (i % 2 === 0) p.kill();
      else setTimeout(() => p.kill(), i % 4);
      stops.push(p.closed);
    }
    await Promise.all(stops);
    await waitFor('the sandbox starts to be gone', () => processesWith(dir).length === 0, 5_000).catch(() => {});
    const left = processesWith(dir);
    for (const pid of left) process.kill(pid, 'SIGKILL');
    assert.deepEqual(left, [], `${left.length} processes outlived their start`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
