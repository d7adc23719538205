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
      const next = await py.run('print("mine")', opts());
      assert.equal(next.stdout, 'mine\n');
      assert.equal(next.stderr, '');
    }
  });

  test(`[${isolation}] a raw _thread thread cannot write into the next run either`, async () => {
    const py = runner({ isolation });
    const first = await py.run(
      'import _thread, os, time\ndef chatter():\n    while True:\n        os.write(1, b"late\\n")\n        time.sleep(0.001)\n_thread.start_new_thread(chatter, ())\n"started"',
      opts(),
    );
    assert.equal(first.value, 'started', first.stderr);
    const next = await py.run('print("mine")', opts());
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
