/**
 * bootstrap.py spoken to directly over its pipes, to pin the interpreter side's own guards
 * (the runner never sends what these tests send).
 */
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

const BOOTSTRAP = fileURLToPath(new URL('../../../src/runtime/python/bootstrap.py', import.meta.url));
const TOOLS = { names: ['echo'], aliases: {}, collisions: {}, helpers: {} };

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => children.splice(0).forEach((c) => c.kill('SIGKILL')));

function launch() {
  const child = spawn('python3', ['-I', BOOTSTRAP, '1000'], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  children.push(child);
  const [stdin, stdout, stderr, out] = child.stdio as unknown as [Writable, Readable, Readable, Readable];
  out.resume();
  let err = '';
  stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let buf = '';
  stdout.setEncoding('utf8').on('data', (t: string) => {
    buf += t;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
      waiters.splice(0).forEach((w) => w());
    }
  });
  const next = async (): Promise<Record<string, unknown>> => {
    while (lines.length === 0) await new Promise<void>((r) => waiters.push(r));
    return lines.shift()!;
  };
  const send = (...msgs: object[]) => stdin.write(msgs.map((m) => `${JSON.stringify(m)}\n`).join(''));
  return { child, stdin, next, send, stderr: () => err };
}

test('a cancel that arrives together with its run still produces a report', { timeout: 10_000 }, async () => {
  const py = launch();
  assert.equal((await py.next()).t, 'ready');
  py.send({ t: 'run', run: 1, token: 't1', code: 'print("never")', tools: TOOLS }, { t: 'cancel', run: 1 });
  const done = await py.next();
  assert.deepEqual([done.t, done.run, done.outcome], ['done', 1, 'cancelled']);
  py.child.kill();
});

test('a result tagged with another run or an unknown call is ignored', { timeout: 10_000 }, async () => {
  const py = launch();
  await py.next();
  py.send({ t: 'run', run: 5, token: 't5', code: 'await tools.echo()', tools: TOOLS });
  const call = await py.next();
  assert.deepEqual([call.t, call.run, call.id, call.name], ['call', 5, 1, 'echo']);
  py.send(
    { t: 'result', run: 4, id: 1, ok: true, value: 'stale run' },
    { t: 'result', run: 5, id: 2, ok: true, value: 'unknown call' },
    { t: 'result', run: 5, id: 1, ok: true, value: 'right' },
  );
  const done = await py.next();
  assert.deepEqual([done.outcome, done.value], ['ok', 'right']);
  py.child.kill();
});

test('a malformed message from the host ends the interpreter with code 70 and says why', { timeout: 10_000 }, async () => {
  const py = launch();
  await py.next();
  py.stdin.write('this is not json\n');
  const [code] = await once(py.child, 'exit');
  assert.equal(code, 70);
  assert.match(py.stderr(), /toolcell: bad message from the host/);
});

test('end of protocol input ends an idle interpreter', { timeout: 10_000 }, async () => {
  const py = launch();
  await py.next();
  py.stdin.end();
  const [code] = await once(py.child, 'exit');
  assert.equal(code, 0);
});

test('loading the runner writes no bytecode cache beside its sources', { timeout: 10_000 }, async () => {
  const py = launch();
  assert.equal((await py.next()).t, 'ready');
  assert.equal(existsSync(join(dirname(BOOTSTRAP), '__pycache__')), false);
});
