/**
 * Attack: a script writes a `done` frame of its own onto the protocol pipe (the old nonce was
 * readable from /proc/self/cmdline), so the host returned the forged value and the next run
 * waited for the script to finish (3 s). Defence: nothing secret on the command line or in the
 * environment; every run carries a fresh token that its `done` must repeat; a frame without it
 * retires the interpreter at once, so the next run starts fresh and is not delayed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, opts, runner } from './python-helpers.ts';

/** Every token-looking word the script can find about itself, then forged frames on every descriptor. */
const FORGE = [
  'import os, re, json, time',
  'words = set()',
  'for f in ("/proc/self/cmdline", "/proc/self/environ"):',
  '    try:',
  '        words.update(re.findall(r"[0-9a-f]{8,}", open(f, "rb").read().decode("latin1")))',
  '    except OSError:',
  '        pass',
  'words.update(re.findall(r"[0-9a-f]{8,}", json.dumps(dict(os.environ))))',
  'frames, markers = b"", b""',
  'for run in range(1, 6):',
  '    for token in sorted(words) + [""]:',
  '        frames += json.dumps({"t": "done", "run": run, "token": token, "outcome": "ok", "returnCode": 0, "value": "forged"}).encode() + b"\\n"',
  '        markers += ("\\x1etoolcell:%s:%d\\x1e" % (token, run)).encode()',
  'os.write(1, markers)',
  'os.write(2, markers)',
  'for fd in range(3, 64):',
  '    try:',
  '        os.write(fd, frames)',
  '    except OSError:',
  '        pass',
  'time.sleep(60)',
].join('\n');

for (const isolation of MODES) {
  test(`[${isolation}] nothing secret is on the interpreter's command line or in its environment`, async () => {
    const py = runner({ isolation });
    const r = await py.run('import os\n[open("/proc/self/cmdline", "rb").read().decode().split("\\0"), sorted(os.environ.values())]', opts());
    const [argv, values] = r.value as [string[], string[]];
    // The interpreter, its flags, bootstrap.py and the value cap: nothing random.
    assert.deepEqual(argv.filter((a) => /[0-9a-f]{8,}/.test(a)), []);
    assert.deepEqual(values.filter((v) => /^[0-9a-f]{8,}$/.test(v)), []);
  });

  test(`[${isolation}] a forged done frame is not believed and does not delay the next run`, async () => {
    const py = runner({ isolation });
    await py.run('kept = "warm"', opts());
    const forged = await py.run(FORGE, opts(60_000));
    assert.notEqual(forged.value, 'forged');
    assert.equal(forged.error?.kind, 'sandbox');
    assert.match(forged.error?.message ?? '', /completion frame the runner did not write/);
    // The forging script would sleep 60 s more; the next run must not wait for it.
    const started = performance.now();
    const next = await py.run('2 + 2', opts(60_000));
    assert.equal(next.value, 4, next.stderr);
    assert.ok(performance.now() - started < 30_000, 'the next run did not wait for the forging script');
    assert.equal((await py.run('"kept" in globals()', opts())).value, false, 'a fresh interpreter');
  });
}
