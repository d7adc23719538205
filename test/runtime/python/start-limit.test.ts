/**
 * The start limit is checked against progress, not the wall clock alone: an interpreter start
 * that is slow because the machine is loaded (it keeps using CPU) gets more time, up to
 * START_LIMIT_PERIODS limits; a start that hangs (uses no CPU) still fails at the first limit.
 * The slow start is made with a launcher that busy-waits in its own process before it becomes
 * python3, as a starved start does; the probe answers with the launcher as the executable, so
 * every start goes through it.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { PythonRunner } from '../../../src/runtime/python/index.ts';
import { START_LIMIT_PERIODS } from '../../../src/runtime/python/startup.ts';
import { scratchDir } from '../../helpers/peers.ts';

const runners: PythonRunner[] = [];
/** The real interpreter behind any shim (pyenv's costs seconds on a loaded machine). */
const REAL = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
after(() => Promise.all(runners.map((r) => r.close())));

/** A python3 whose interpreter start first runs `before` (bash) in its own process. */
function launcher(name: string, before: string): string {
  const dir = scratchDir(`toolcell-start-${name}-`);
  const file = path.join(dir, 'python3');
  fs.writeFileSync(
    file,
    [
      '#!/bin/bash',
      // The probe (`-I -c …`): the real answer, with this launcher as the executable.
      `if [ "$2" = "-c" ]; then ${REAL} "$@" | sed "s#\\"executable\\": \\"[^\\"]*\\"#\\"executable\\": \\"$0\\"#"; exit; fi`,
      before,
      `exec ${REAL} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return file;
}

const LIMIT_MS = 1000;

test('a start that keeps using CPU past the limit is given more time and succeeds', async () => {
  // Busy for 2.5 limits of wall clock, in this very process (bash builtins only).
  const python = launcher('busy', 'end=$((SECONDS + 3)); while (( SECONDS < end )); do :; done');
  const runner = new PythonRunner({ python, isolation: 'none', startTimeoutMs: LIMIT_MS });
  runners.push(runner);
  const r = await runner.run('1 + 1', { tools: [], timeoutMs: 30_000 });
  assert.equal(r.ok, true, `${r.error?.message} ${r.stderr}`);
  assert.equal(r.value, 2);
  assert.ok(START_LIMIT_PERIODS * LIMIT_MS > 3000, 'the cap leaves the busy start room');
});

test('a start that hangs (no CPU) fails at the first limit, naming it', async () => {
  const python = launcher('hung', 'sleep 30');
  const runner = new PythonRunner({ python, isolation: 'none', startTimeoutMs: LIMIT_MS });
  runners.push(runner);
  const started = performance.now();
  const r = await runner.run('1', { tools: [], timeoutMs: 30_000 });
  const took = performance.now() - started;
  assert.equal(r.ok, false);
  assert.match(String(r.error?.message), /did not start within/);
  // Not extended: well under the cap (the probe before it takes its own time).
  assert.ok(took < (START_LIMIT_PERIODS - 1) * LIMIT_MS + 10_000, `failed after ${took.toFixed(0)} ms`);
  assert.doesNotMatch(String(r.error?.message), /still making progress/);
});
