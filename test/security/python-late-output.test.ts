/**
 * Attack: output written after a run ended, by a thread the script left behind, appeared in
 * the next run's stdout. Defence: a run that leaves a thread running retires its interpreter
 * (the next run starts fresh, the thread is gone), and processes it started are killed before
 * its output is fenced, so nothing it started can write into a later run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, opts, runner } from './python-helpers.ts';

for (const isolation of MODES) {
  test(`[${isolation}] a thread left running cannot write into the next run`, async () => {
    const py = runner({ isolation });
    const first = await py.run(
      [
        'import threading, os, sys, time',
        'def chatter():',
        '    while True:',
        '        print("late print")',
        '        os.write(1, b"late fd write\\n")',
        '        sys.stderr.write("late stderr\\n")',
        '        time.sleep(0.001)',
        'threading.Thread(target=chatter, daemon=True).start()',
        'time.sleep(0.05)',
        '"started"',
      ].join('\n'),
      opts(),
    );
    assert.equal(first.value, 'started', first.stderr);
    assert.match(first.stdout, /late print/, 'the thread really wrote during its own run');
    assert.match(first.stderr, /left 1 thread\(s\) running; the interpreter was restarted/);
    for (let i = 0; i < 5; i++) {
      // The next run lasts long enough for a surviving thread to write many times.
      const next = await py.run('import time\ntime.sleep(0.02)\nprint("mine")', opts());
      assert.equal(next.stdout, 'mine\n');
      assert.equal(next.stderr, '');
    }
  });

  test(`[${isolation}] a raw _thread thread cannot write into the next run either`, async () => {
    const py = runner({ isolation });
    const first = await py.run(
      [
        'import _thread, os, time',
        'wrote = _thread.allocate_lock()',
        'wrote.acquire()',
        'def chatter():',
        '    while True:',
        '        os.write(1, b"late\\n")',
        '        if wrote.locked():',
        '            wrote.release()',
        '        time.sleep(0.001)',
        '_thread.start_new_thread(chatter, ())',
        'wrote.acquire()  # the thread is running and writing',
        '"started"',
      ].join('\n'),
      opts(),
    );
    assert.equal(first.value, 'started', first.stderr);
    assert.match(first.stdout, /late/);
    const next = await py.run('import time\ntime.sleep(0.02)\nprint("mine")', opts());
    assert.equal(next.stdout, 'mine\n');
  });

  test(`[${isolation}] threads that finished in time keep the interpreter warm`, async () => {
    const py = runner({ isolation });
    const r = await py.run('import threading\nkept = 1\nt = threading.Thread(target=print, args=("from thread",))\nt.start()\nt.join()', opts());
    assert.equal(r.stdout, 'from thread\n');
    assert.equal((await py.run('import asyncio\nawait asyncio.to_thread(sum, [1, 2])', opts())).value, 3);
    assert.equal((await py.run('kept', opts())).value, 1, 'no restart for threads that are gone');
  });
}
