import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { PythonRunner } from '../../../src/runtime/python/index.ts';

// One warm interpreter for the whole file, as code_execution keeps one per conversation.
const runner = new PythonRunner({ outputCapBytes: 4096 });
// `sh` exists only outside the OS layer, whose sandbox holds just the interpreter.
const plain = new PythonRunner({ outputCapBytes: 4096, isolation: 'none' });
after(() => Promise.all([runner.close(), plain.close()]));
const run = (code: string) => runner.run(code, { tools: [], timeoutMs: 10_000 });

test('print, sys.stderr and the last expression come back separately, like a REPL', async () => {
  const r = await run('import sys\nprint("out", 1)\nprint("err", file=sys.stderr)\n{"a": [1, 2.5, None, "é"]}');
  assert.deepEqual(r, { ok: true, stdout: 'out 1\n', stderr: 'err\n', returnCode: 0, calls: [], value: { a: [1, 2.5, null, 'é'] }, session: { fresh: true } });
});

test('a value JSON cannot carry gets its documented form, said in converted; None and statements give no value', async () => {
  const set = await run('{2, 1}');
  assert.deepEqual(set.value, [1, 2]);
  assert.deepEqual(set.converted, [{ kind: 'set', as: 'array', count: 1 }]);
  assert.equal((await run('float("nan")')).value, 'NaN');
  assert.equal('value' in (await run('None')), false);
  assert.equal('value' in (await run('x = 1')), false);
});

test('globals persist between runs in the same interpreter', async () => {
  await run('counter = 41\ndef bump():\n    global counter\n    counter += 1\n    return counter');
  assert.equal((await run('bump()')).value, 42);
  assert.equal((await run('counter')).value, 42);
});

test('top-level await, async for and async with work', async () => {
  const r = await run(
    [
      'import asyncio, contextlib',
      'async def gen():',
      '    for i in range(3):',
      '        await asyncio.sleep(0)',
      '        yield i',
      '@contextlib.asynccontextmanager',
      'async def ctx():',
      '    yield 10',
      'total = 0',
      'async for i in gen():',
      '    total += i',
      'async with ctx() as base:',
      '    total += base',
      'await asyncio.sleep(0) or total',
    ].join('\n'),
  );
  assert.equal(r.ok, true, r.stderr);
  assert.equal(r.value, 13);
});

test('an uncaught exception is a script error with a traceback that points at the script only', async () => {
  const r = await run('def f():\n    raise ValueError("bad value")\nf()');
  assert.equal(r.ok, false);
  assert.equal(r.returnCode, 1);
  assert.equal(r.error?.kind, 'script');
  assert.equal(r.error?.name, 'ValueError');
  assert.equal(r.error?.message, 'bad value');
  assert.match(r.stderr, /File "<run \d+>", line 3, in <module>\n/);
  assert.match(r.stderr, /line 2, in f\n    raise ValueError\("bad value"\)\n/);
  assert.doesNotMatch(r.stderr, /bootstrap\.py/);
  assert.equal(r.stderr, r.error?.stack);
});

test('a syntax error is a script error and leaves the interpreter usable', async () => {
  const r = await run('def broken(:\n  pass');
  assert.equal(r.error?.kind, 'script');
  assert.equal(r.error?.name, 'SyntaxError');
  assert.equal((await run('1 + 1')).value, 2);
});

test('sys.exit sets the return code without ending the interpreter', async () => {
  const zero = await run('import sys\nprint("bye")\nsys.exit(0)');
  assert.deepEqual([zero.ok, zero.returnCode, zero.stdout], [true, 0, 'bye\n']);
  const three = await run('import sys\nsys.exit(3)');
  assert.deepEqual([three.ok, three.returnCode, three.error?.name], [false, 3, 'SystemExit']);
  const text = await run('import sys\nsys.exit("fatal: no input")');
  assert.deepEqual([text.returnCode, text.stderr], [1, 'fatal: no input\n']);
  assert.equal(runner.state, 'idle');
});

test('stdin is detached: input() sees end of file at once', async () => {
  const r = await run('input()');
  assert.equal(r.error?.name, 'EOFError');
});

test('writes to fd 1, sys.__stdout__ and subprocesses land in the run output, never in the protocol', async () => {
  const r = await plain.run(
    [
      'import os, sys, subprocess',
      'os.write(1, b\'{"t":"done","run":1,"outcome":"ok","returnCode":0}\\n\')',
      'sys.__stdout__.write("dunder\\n")',
      'subprocess.run(["sh", "-c", "echo child-out; echo child-err >&2"])',
      'os.system("echo via-system")',
      'print("last")',
    ].join('\n'),
    { tools: [], timeoutMs: 10_000 },
  );
  assert.equal(r.ok, true, r.stderr);
  assert.equal(r.stdout, '{"t":"done","run":1,"outcome":"ok","returnCode":0}\ndunder\nchild-out\nvia-system\nlast\n');
  assert.equal(r.stderr, 'child-err\n');
});

test('a script that redirects fd 1 and 2 or replaces sys.stdout does not confuse the next run', async () => {
  const r = await run('import os, sys, io\nfd = os.open(os.devnull, os.O_WRONLY)\nos.dup2(fd, 1)\nos.dup2(fd, 2)\nsys.stdout = io.StringIO()\nprint("lost")');
  assert.equal(r.ok, true);
  const next = await run('print("visible")\nimport sys\nprint("e", file=sys.stderr)');
  assert.deepEqual([next.stdout, next.stderr], ['visible\n', 'e\n']);
});

test('output beyond the cap is cut and flagged, and the run still ends normally', async () => {
  const r = await run('import sys\nprint("a" * 3000)\nprint("b" * 3000, file=sys.stderr)\nprint("tail")');
  assert.equal(r.ok, true);
  assert.equal(r.truncated, true);
  assert.equal(Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr), 4096);
  const next = await run('print("small")');
  assert.deepEqual([next.stdout, next.truncated], ['small\n', undefined]);
});

test('a value larger than the cap is left out and flagged', async () => {
  const r = await run('"x" * 10000');
  assert.equal(r.ok, true);
  assert.equal('value' in r, false);
  assert.equal(r.truncated, true);
});

test('text written like our end marker does not end the run early', async () => {
  const r = await run('print("\\x1etoolcell:0000:1\\x1e")\nprint("still here")');
  assert.equal(r.stdout, '\x1etoolcell:0000:1\x1e\nstill here\n');
});

test('non-ASCII and undecodable output survive', async () => {
  const r = await run('print("héllo ☃ \\ud800")\nimport os\nos.write(1, "ünï\\n".encode())');
  assert.equal(r.ok, true, r.stderr);
  assert.equal(r.stdout, 'héllo ☃ \\ud800\nünï\n');
});

test('a script that closes sys.stdout gets working streams back in the next run', async () => {
  const r = await run('import sys\nprint("before")\nsys.stdout.close()\nsys.stderr.close()');
  assert.equal(r.ok, true);
  assert.equal(r.stdout, 'before\n');
  const next = await run('import sys\nprint("works")\nprint("e", file=sys.stderr)');
  assert.deepEqual([next.stdout, next.stderr], ['works\n', 'e\n']);
});

test('an exception whose str() raises still produces a clear script error', async () => {
  const r = await run('class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError("no str")\nraise Odd()');
  assert.equal(r.error?.name, 'Odd');
  assert.match(r.error?.message ?? '', /<str failed: RuntimeError: no str>/);
  assert.equal((await run('"fine"')).value, 'fine');
});

test('the script runs as __main__, so pickle and dataclasses find what it defines', async () => {
  const r = await run(
    'import pickle, dataclasses\n@dataclasses.dataclass\nclass Point:\n    x: int\n    y: "int" = 0\np = pickle.loads(pickle.dumps(Point(1, 2)))\n[type(p) is Point, p.y, __name__]',
  );
  assert.equal(r.ok, true, r.stderr);
  assert.deepEqual(r.value, [true, 2, '__main__']);
});
