/**
 * Attacks the OS layer must stop (bubblewrap only; without it a Python script holds the host
 * user's rights and these are documented as not stopped): reading the host's launch
 * environment through /proc, seeing the host's processes, network, reading files outside the
 * grants, writing anywhere but the private /tmp and read-write grants.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { opts, runner } from './python-helpers.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcell-grant-'));
const secretDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcell-secret-'));
const roDir = path.join(dir, 'ro');
const rwDir = path.join(dir, 'rw');
before(() => {
  fs.mkdirSync(roDir);
  fs.mkdirSync(rwDir);
  fs.writeFileSync(path.join(roDir, 'given.txt'), 'granted read-only');
  fs.writeFileSync(path.join(secretDir, 'secret.txt'), 'not granted');
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(secretDir, { recursive: true, force: true });
});

const py = () => runner({ isolation: 'bwrap', mounts: [{ path: roDir, mode: 'ro' }, { path: rwDir, mode: 'rw', target: '/data' }] });

/** Runs `expr` and returns [ok, detail] for each attempt, so one test reports every outcome. */
const attempt = (body: string) => `def attempt(f):\n    try:\n        return [True, repr(f())[:200]]\n    except BaseException as e:\n        return [False, type(e).__name__]\n${body}`;

test('[bwrap] the host\'s launch environment and processes are out of sight', async () => {
  const r = await py().run(
    attempt(
      [
        'import os',
        `host = ${process.pid}`,
        '[attempt(lambda: open("/proc/%d/environ" % os.getppid(), "rb").read()),',
        ' attempt(lambda: open("/proc/%d/environ" % host, "rb").read()),',
        ' attempt(lambda: open("/proc/1/environ", "rb").read().decode()),',
        ' sorted(int(p) for p in os.listdir("/proc") if p.isdigit()), os.getppid()]',
      ].join('\n'),
    ),
    opts(),
  );
  assert.equal(r.ok, true, r.stderr);
  const [viaParent, viaHostPid, own, pids, ppid] = r.value as [[boolean, string], [boolean, string], [boolean, string], number[], number];
  assert.equal(viaParent[0], false, `parent's environ was readable: ${viaParent[1]}`);
  assert.equal(viaHostPid[0], false, `the host's environ was readable: ${viaHostPid[1]}`);
  assert.equal(ppid, 0, 'the interpreter is the root of its own pid namespace');
  assert.deepEqual(pids, [1], 'no other process is visible');
  assert.equal(own[0], true);
  assert.doesNotMatch(own[1], /PATH=\/usr|NODE|npm_/, 'its own environment is the allowlist only');
});

test('[bwrap] no network: a TCP connection to a loopback server on the host fails', async () => {
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  try {
    const r = await py().run(
      attempt(`import socket\n[attempt(lambda: socket.create_connection(("127.0.0.1", ${port}), timeout=5).close()), attempt(lambda: socket.getaddrinfo("example.org", 443))]`),
      opts(),
    );
    assert.equal(r.ok, true, r.stderr);
    const [tcp, dns] = r.value as [[boolean, string], [boolean, string]];
    assert.equal(tcp[0], false, 'the loopback connection succeeded');
    assert.equal(dns[0], false, 'name resolution succeeded');
    assert.equal(accepted, 0);
  } finally {
    server.close();
  }
});

test('[bwrap] files outside the grants cannot be read', async () => {
  const r = await py().run(
    attempt(
      [
        `[attempt(lambda: open(${JSON.stringify(path.join(secretDir, 'secret.txt'))}).read()),`,
        ` attempt(lambda: open(${JSON.stringify(path.join(process.cwd(), 'package.json'))}).read()),`,
        ' attempt(lambda: open("/etc/passwd").read()),',
        ' attempt(lambda: open(os.path.expanduser("~/.bash_history")).read()),',
        ` attempt(lambda: open(${JSON.stringify(path.join(roDir, 'given.txt'))}).read())]`,
      ].join('\n'),
    ).replace('def attempt', 'import os\ndef attempt'),
    opts(),
  );
  assert.equal(r.ok, true, r.stderr);
  const [secret, pkg, passwd, history, granted] = r.value as [boolean, string][];
  assert.deepEqual([secret![0], pkg![0], passwd![0], history![0]], [false, false, false, false], JSON.stringify(r.value));
  assert.deepEqual(granted, [true, "'granted read-only'"]);
});

test('[bwrap] writes land only in the private /tmp and read-write grants', async () => {
  const marker = `toolcell-tmp-${process.pid}-${Date.now()}`;
  const r = await py().run(
    attempt(
      [
        'def write(p):',
        '    with open(p, "w") as f:',
        '        f.write("x")',
        `[attempt(lambda: write(${JSON.stringify(path.join(roDir, 'new.txt'))})),`,
        ` attempt(lambda: write(${JSON.stringify(path.join(secretDir, 'new.txt'))})),`,
        ' attempt(lambda: write("/usr/lib/toolcell-new.txt")),',
        ' attempt(lambda: write("/toolcell-new.txt")),',
        ` attempt(lambda: write("/tmp/${marker}")),`,
        ' attempt(lambda: write("/data/written.txt"))]',
      ].join('\n'),
    ),
    opts(),
  );
  assert.equal(r.ok, true, r.stderr);
  const [ro, outside, usr, root, tmp, rw] = (r.value as [boolean, string][]).map((a) => a[0]);
  assert.deepEqual([ro, outside, usr, root], [false, false, false, false], JSON.stringify(r.value));
  assert.equal(tmp, true);
  assert.equal(fs.existsSync(path.join(os.tmpdir(), marker)), false, 'the sandbox /tmp is private');
  assert.equal(rw, true);
  assert.equal(fs.readFileSync(path.join(rwDir, 'written.txt'), 'utf8'), 'x', 'the read-write grant reaches the host');
  assert.equal(fs.existsSync(path.join(roDir, 'new.txt')), false);
});

test('[bwrap] a grant that does not exist is a clear sandbox error, and bad grants are refused up front', async () => {
  const r = await runner({ isolation: 'bwrap', mounts: [{ path: path.join(dir, 'missing'), mode: 'ro' }] }).run('1', opts());
  assert.equal(r.error?.kind, 'sandbox');
  assert.match(r.error?.message ?? '', /granted mount ".*missing" does not exist/);
  assert.throws(() => runner({ mounts: [{ path: 'relative', mode: 'ro' }] }), /mounts\[0\]\.path must be an absolute path/);
  assert.throws(() => runner({ mounts: [{ path: '/x', mode: 'rx' as 'ro' }] }), /mounts\[0\]\.mode must be 'ro' or 'rw'/);
  assert.throws(() => runner({ mounts: [{ path: '/x', mode: 'ro', target: '/proc/x' }] }), /would cover the sandbox's \/proc/);
  assert.throws(() => runner({ isolation: 'sandbox' as 'none' }), /isolation must be one of/);
});

test("'bwrap' fails closed when bubblewrap is unusable; 'auto' falls back to none and says so", async () => {
  const missing = '/nonexistent/toolcell/bwrap';
  const closed = await runner({ isolation: 'bwrap', bwrapPath: missing }).run('print("ran")', opts());
  assert.equal(closed.ok, false);
  assert.equal(closed.error?.kind, 'sandbox');
  assert.match(closed.error?.message ?? '', /isolation 'bwrap' was required but is unavailable: .*nonexistent/);
  assert.equal(closed.stdout, '', 'nothing ran');
  const said: string[] = [];
  const open = await runner({ isolation: 'auto', bwrapPath: missing, onDiagnostic: (m) => said.push(m) }).run('import os\nos.getpid() != 1', opts());
  assert.equal(open.value, true, 'ran without a namespace');
  // Only the isolation is announced here (a cap that cannot be enforced has its own sentence).
  const isolationSaid = said.filter((m) => m.startsWith('isolation '));
  assert.equal(isolationSaid.length, 1, said.join('\n'));
  assert.match(isolationSaid[0]!, /isolation 'auto' chose none: .*nonexistent.*host user's rights/);
});

for (const isolation of ['none', 'bwrap'] as const) {
  test(`[${isolation}] descriptors the host inherited never reach the script`, { timeout: 60_000 }, async (t) => {
    // A host whose parent left a descriptor inheritable (here bash's `exec 200<file`; node marks
    // only low descriptors close-on-exec): the script must not reach the file through it.
    const secret = path.join(secretDir, 'secret.txt');
    const runnerUrl = new URL('../../src/runtime/python/index.ts', import.meta.url).href;
    const code = `const { PythonRunner } = await import(${JSON.stringify(runnerUrl)});
      const py = new PythonRunner({ isolation: ${JSON.stringify(isolation)} });
      const r = await py.run('import os\\n[os.readlink("/proc/self/fd/" + f) for f in os.listdir("/proc/self/fd") if os.path.exists("/proc/self/fd/" + f)]', { tools: [], timeoutMs: 10000 });
      await py.close();
      process.stdout.write(JSON.stringify(r.value));`;
    const child = spawn('bash', ['-c', 'exec 200<"$1"; shift; exec "$@"', 'bash', secret, process.execPath, '--import', 'tsx', '--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.after(() => child.kill('SIGKILL'));
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => (out += text));
    const [exitCode] = await once(child, 'exit');
    assert.equal(exitCode, 0);
    const seen = JSON.parse(out) as string[];
    assert.ok(seen.length >= 3, out);
    assert.ok(!seen.includes(secret), `the host's inherited descriptor reached the script: ${out}`);
  });
}

test('[bwrap] the environment is the allowlist and the operator\'s extras, never the host\'s secrets', async () => {
  process.env.TOOLCELL_HOST_SECRET = 'do-not-leak';
  try {
    const r = await runner({ isolation: 'bwrap', env: { TOOLCELL_EXTRA: 'given' } }).run('import os\ndict(os.environ)', opts());
    const env = r.value as Record<string, string>;
    assert.equal(env.TOOLCELL_EXTRA, 'given');
    assert.equal(env.HOME, '/tmp');
    const allowed = new Set(['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR', 'TZ', 'PYTHONIOENCODING', 'PWD', 'TOOLCELL_EXTRA']);
    assert.deepEqual(Object.keys(env).filter((k) => !allowed.has(k)), []);
  } finally {
    delete process.env.TOOLCELL_HOST_SECRET;
  }
});
