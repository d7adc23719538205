import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PythonRunner, PythonRunnerError } from '../../../src/runtime/python/index.ts';
import { deferred, processGone, tool, waitFor } from './helpers.ts';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
before(() => process.on('unhandledRejection', onUnhandled));
after(() => {
  process.off('unhandledRejection', onUnhandled);
  assert.deepEqual(unhandled, [], 'no promise may reject unhandled');
});

const opts = { tools: [], timeoutMs: 5000 };
const runners: PythonRunner[] = [];
const make = (o: ConstructorParameters<typeof PythonRunner>[0] = {}) => {
  const r = new PythonRunner(o);
  runners.push(r);
  return r;
};
after(() => Promise.all(runners.map((r) => r.close())));

test('the child sees the allowlist and explicit extras, never the host secrets', async () => {
  // The real interpreter, not a launcher script (pyenv's shim adds variables of its own).
  const probe = make();
  const executable = (await probe.run('import sys\nsys.executable', opts)).value as string;
  process.env.TOOLCELL_SECRET = 'do-not-leak';
  try {
    // Without the OS layer, where `sh` exists (test/security/python-isolation covers bubblewrap's environment).
    const runner = make({ python: executable, env: { TOOLCELL_EXTRA: 'given' }, isolation: 'none' });
    const r = await runner.run(
      'import os, subprocess\nsub = subprocess.run(["sh", "-c", "echo ${TOOLCELL_SECRET:-absent}"], capture_output=True, text=True).stdout.strip()\n[os.environ.get("TOOLCELL_SECRET"), os.environ.get("TOOLCELL_EXTRA"), sub, sorted(os.environ)]',
      opts,
    );
    assert.equal(r.ok, true, r.stderr);
    const [secret, extra, sub, keys] = r.value as [unknown, string, string, string[]];
    assert.equal(secret, null);
    assert.equal(extra, 'given');
    assert.equal(sub, 'absent');
    const allowed = new Set(['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR', 'TZ', 'PYTHONIOENCODING', 'TOOLCELL_EXTRA']);
    assert.deepEqual(keys.filter((k) => !allowed.has(k)), []);
  } finally {
    delete process.env.TOOLCELL_SECRET;
  }
});

test('a missing python3 is a clear sandbox error from run() and a typed rejection from start()', async () => {
  const runner = make({ python: 'toolcell-no-such-python3' });
  const r = await runner.run('1', opts);
  assert.equal(r.ok, false);
  assert.equal(r.error?.kind, 'sandbox');
  assert.match(r.error?.message ?? '', /"toolcell-no-such-python3" was not found/);
  assert.equal(runner.state, 'dead');
  await assert.rejects(runner.start(), (e: unknown) => e instanceof PythonRunnerError && e.kind === 'sandbox');
});

test('an interpreter that exits during startup reports it with its stderr', async () => {
  const runner = make({ python: 'sh', env: {} });
  // `sh bootstrap.py ...` is not Python: sh fails on the first line and exits.
  const r = await runner.run('1', opts);
  assert.equal(r.error?.kind, 'sandbox');
  assert.match(r.error?.message ?? '', /exited with code \d+ while starting/);
});

test('os._exit during a run is a sandbox error; the next run gets a fresh interpreter', async () => {
  const runner = make();
  await runner.run('kept = 1\nprint("warm")', opts);
  const r = await runner.run('import os, sys\nprint("before exit")\nsys.stdout.flush()\nos._exit(7)', opts);
  assert.equal(r.error?.kind, 'sandbox');
  assert.match(r.error?.message ?? '', /exited with code 7 during the run/);
  assert.equal(r.returnCode, 7);
  assert.equal(r.stdout, 'before exit\n');
  assert.equal(runner.state, 'dead');
  const next = await runner.run('kept', opts);
  assert.equal(next.error?.name, 'NameError');
  assert.equal(runner.state, 'idle');
});

test('a segfault is a sandbox error carrying the fault traceback in stderr', async () => {
  const runner = make();
  const r = await runner.run('import ctypes\nctypes.string_at(0)', opts);
  assert.equal(r.error?.kind, 'sandbox');
  assert.match(r.error?.message ?? '', /killed by SIGSEGV during the run/);
  assert.equal(r.returnCode, 139);
  assert.match(r.stderr, /Fatal Python error: Segmentation fault/);
  assert.equal((await runner.run('2 + 2', opts)).value, 4);
});

test('a call in flight when the interpreter dies is cancelled; its late result reaches no other interpreter', async () => {
  const runner = make();
  const stale = deferred();
  const fresh = deferred();
  const freshStarted = deferred();
  const slow = tool('slow', (args) => {
    if ((args as { which: string }).which === 'stale') return stale.promise;
    freshStarted.resolve(null);
    return fresh.promise;
  });
  const tools = [slow];
  const dead = await runner.run('import asyncio, os\nasyncio.ensure_future(tools.slow(which="stale"))\nawait asyncio.sleep(0.01)\nos._exit(1)', { tools, timeoutMs: 5000 });
  assert.equal(dead.error?.kind, 'sandbox');
  assert.deepEqual(dead.calls.map((c) => c.status), ['cancelled']);
  const second = runner.run('await tools.slow(which="fresh")', { tools, timeoutMs: 5000 });
  await freshStarted.promise;
  stale.resolve('STALE');
  fresh.resolve('FRESH');
  assert.equal((await second).value, 'FRESH');
});

test('kill() ends a run in progress as aborted and the runner recovers', async () => {
  const runner = make();
  const entered = deferred();
  const gate = tool('gate', () => (entered.resolve(null), new Promise(() => {})));
  await runner.run('1', opts);
  const pid = runner.pid!;
  const running = runner.run('await tools.gate()', { tools: [gate], timeoutMs: 30_000 });
  await entered.promise;
  runner.kill();
  const r = await running;
  assert.equal(r.error?.kind, 'aborted');
  assert.match(r.error?.message ?? '', /runner was killed/);
  assert.deepEqual(r.calls.map((c) => c.status), ['cancelled']);
  assert.equal(runner.state, 'dead');
  await waitFor('the killed interpreter to exit', () => processGone(pid));
  assert.equal((await runner.run('"back"', opts)).value, 'back');
});

test('an idle interpreter is reclaimed after idleTimeoutMs; globals go with it', async () => {
  const runner = make({ idleTimeoutMs: 100 });
  await runner.run('kept = 1', opts);
  const pid = runner.pid!;
  assert.equal(runner.state, 'idle');
  await waitFor('the idle interpreter to be reclaimed', () => runner.state === 'cold');
  await waitFor('the reclaimed process to exit', () => processGone(pid));
  const r = await runner.run('kept', opts);
  assert.equal(r.error?.name, 'NameError');
});

test('start() warms the interpreter; state moves cold → starting → idle → busy → idle', async () => {
  const runner = make();
  assert.equal(runner.state, 'cold');
  const starting = runner.start();
  assert.equal(runner.state, 'starting');
  await starting;
  assert.equal(runner.state, 'idle');
  const running = runner.run('1', opts);
  assert.equal(runner.state, 'busy');
  await running;
  assert.equal(runner.state, 'idle');
});

test('start() can be cancelled; the runner stays usable', async () => {
  const runner = make();
  const controller = new AbortController();
  const starting = runner.start(controller.signal);
  controller.abort();
  await assert.rejects(starting, (e: unknown) => e instanceof PythonRunnerError && e.kind === 'aborted');
  assert.equal(runner.state, 'cold');
  assert.equal((await runner.run('"ok"', opts)).value, 'ok');
});

test('cancelling one start() does not cancel a startup a run is waiting for', async () => {
  const runner = make();
  const controller = new AbortController();
  const starting = runner.start(controller.signal);
  const running = runner.run('"ran"', opts);
  controller.abort();
  await assert.rejects(starting, { kind: 'aborted' });
  assert.equal((await running).value, 'ran');
});

test('two runs in the same tick on a cold runner: the second is refused, the first completes', async () => {
  const runner = make();
  const first = runner.run('"first"', opts);
  const second = runner.run('"second"', opts);
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.value, 'first');
  assert.equal(b.error?.kind, 'sandbox');
  assert.match(b.error?.message ?? '', /busy/);
});

test('close() ends the interpreter and refuses later runs', async () => {
  const runner = make();
  await runner.run('1', opts);
  const pid = runner.pid!;
  await runner.close();
  assert.ok(processGone(pid));
  assert.equal(runner.state, 'dead');
  const r = await runner.run('1', opts);
  assert.match(r.error?.message ?? '', /closed/);
});

test('invalid arguments are rejected with a clear error', async () => {
  const runner = make();
  await assert.rejects(runner.run(42 as never, opts), /code must be a string/);
  await assert.rejects(runner.run('1', { tools: [], timeoutMs: 0 }), /timeoutMs must be a positive number/);
  await assert.rejects(runner.run('1', { tools: [], timeoutMs: 2 ** 31 }), /timeoutMs must be a positive number of at most 2147483647/);
  await assert.rejects(runner.run('1', { tools: undefined as never, timeoutMs: 10 }), /tools must be an array/);
  assert.throws(() => new PythonRunner({ env: { 'BAD NAME': 'x' } }), /not a valid environment variable name/);
  assert.throws(() => new PythonRunner({ outputCapBytes: -1 }), /outputCapBytes must be a positive number/);
  assert.equal(runner.state, 'cold');
});

test('a script that closes the runner\'s own descriptors ends its interpreter with a clear error', async () => {
  const runner = make();
  const r = await runner.run('import os\nos.closerange(3, 1024)\nprint("closed")', opts);
  assert.equal(r.error?.kind, 'sandbox');
  assert.match(r.error?.message ?? '', /exited with code 70 during the run/);
  assert.equal((await runner.run('"recovered"', opts)).value, 'recovered');
});
