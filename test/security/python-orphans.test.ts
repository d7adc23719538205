/**
 * Attack: processes a script starts outliving its run. `subprocess.Popen(...,
 * start_new_session=True)` escaped the process group the runner killed and was orphaned to
 * pid 1, surviving the time limit and close(). Defence: the interpreter is a subreaper (or pid
 * 1 of its own namespace) and kills every process it started when a run ends; the host kills
 * the whole tree (or namespace) when it kills the interpreter.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { MODES, opts, processesWith, runner, waitFor } from './python-helpers.ts';

/** Starts a detached sleeper (and, with `double`, one whose parent exits at once) tagged `marker`. */
const spawnOrphans = (marker: string) => [
  'import subprocess, sys, os',
  `sleeper = [sys.executable, "-c", "import time; time.sleep(600)", "${marker}"]`,
  'subprocess.Popen(sleeper, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)',
  // A double fork: the middle process exits, so the sleeper is re-parented away from the interpreter.
  'subprocess.run([sys.executable, "-c", "import subprocess, sys; subprocess.Popen(sys.argv[1:], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)", *sleeper])',
].join('\n');

for (const isolation of MODES) {
  test(`[${isolation}] processes a run started do not outlive the run`, async () => {
    const marker = `toolcell-orphan-${randomBytes(6).toString('hex')}`;
    const py = runner({ isolation });
    const r = await py.run(`${spawnOrphans(marker)}\n"started"`, opts());
    assert.equal(r.value, 'started', r.stderr);
    await waitFor('the run\'s processes to be gone', () => processesWith(marker).length === 0);
    assert.equal((await py.run('1 + 1', opts())).value, 2, 'the interpreter itself stays warm');
  });

  test(`[${isolation}] processes survive neither the time limit nor close()`, async () => {
    const marker = `toolcell-orphan-${randomBytes(6).toString('hex')}`;
    const py = runner({ isolation, interruptGraceMs: 50, killGraceMs: 200 });
    // The script ignores the interrupt, so the runner must kill the interpreter itself.
    const code = `${spawnOrphans(marker)}\nimport time\nwhile True:\n    try:\n        time.sleep(60)\n    except BaseException:\n        pass`;
    const r = await py.run(code, opts(1500));
    assert.equal(r.error?.kind, 'timeout');
    await waitFor('processes to die with the killed interpreter', () => processesWith(marker).length === 0);

    const marker2 = `toolcell-orphan-${randomBytes(6).toString('hex')}`;
    const running = py.run(`${spawnOrphans(marker2)}\nprint("spawned", flush=True)\nimport time\ntime.sleep(60)`, opts(60_000));
    await waitFor('the second set of processes to start', () => processesWith(marker2).length >= 2);
    await py.close();
    assert.equal((await running).error?.kind, 'aborted');
    await waitFor('processes to die with close()', () => processesWith(marker2).length === 0);
  });
}
