/**
 * Caps on a Python interpreter, with and without bubblewrap: the red team's script allocated
 * 2 GiB, forked 200 processes and spun the CPU with nothing stopping it (issue 19, item 6). Each
 * attack now ends its run with a `sandbox` error naming the cap it hit. The /tmp attack (which
 * needs bubblewrap's private tmpfs) is in sandbox-caps.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pidsHierarchy } from '../../src/runtime/isolation/index.ts';
import { MODES, opts, runner } from './python-helpers.ts';

const GiB = 1024 ** 3;

for (const isolation of MODES) {
  test(`python (${isolation}): allocating 2 GiB ends the run at the memory cap`, async () => {
    const r = runner({ isolation });
    // Zero-filled and untouched, so without a cap it costs address space, not RAM.
    const res = await r.run(`b = bytearray(${2 * GiB})\nlen(b)`, opts(30_000));
    assert.equal(res.ok, false, `the allocation succeeded: ${JSON.stringify(res.value)}`);
    assert.equal(res.error?.kind, 'sandbox', JSON.stringify(res.error));
    assert.match(res.error!.message, /the script exceeded its memory cap \(address space 1 GiB\): MemoryError/);
  });

  // Where the kernel offers no per-sandbox count (docs/security.md, "The process cap, and root").
  const cgroup = pidsHierarchy() !== null;
  const root = process.getuid?.() === 0;
  const processCap = cgroup || (isolation === 'bwrap' && !root) ? false : 'no pids cgroup here, and RLIMIT_NPROC cannot count one sandbox for this user';
  test(`python (${isolation}): forking 200 processes ends the run at the process cap`, { skip: processCap }, async () => {
    const r = runner({ isolation });
    const code = [
      'import os, time',
      'forked = 0',
      'for _ in range(200):',
      '    if os.fork() == 0:',
      '        time.sleep(60)',
      '        os._exit(0)',
      '    forked += 1',
      'forked',
    ].join('\n');
    const res = await r.run(code, opts(60_000));
    assert.equal(res.ok, false, `forked ${JSON.stringify(res.value)} processes`);
    assert.equal(res.error?.kind, 'sandbox', JSON.stringify(res.error));
    assert.match(res.error!.message, /the script reached its process cap \(64 processes and threads at once\)/);
  });

  test(`python (${isolation}): spinning past the CPU time cap ends the run`, async () => {
    const r = runner({ isolation, caps: { cpuSeconds: 2 } });
    const res = await r.run('while True:\n    pass', opts(60_000));
    assert.equal(res.ok, false);
    assert.equal(res.error?.kind, 'sandbox', JSON.stringify(res.error));
    assert.match(res.error!.message, /the script exceeded its CPU time cap \(2 s of CPU for its process\)/);
    // The next run gets a fresh interpreter, with its own CPU budget.
    const next = await r.run('1 + 1', opts());
    assert.equal(next.value, 2, JSON.stringify(next));
  });
}

test("code_execution's caps option reaches the interpreter, and the model reads which cap ended the run", async () => {
  const { ToolHost } = await import('../../src/host/tool-host.ts');
  const { registerCodeExecution } = await import('../../src/code-execution/index.ts');
  const pino = (await import('pino')).default;
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const ce = registerCodeExecution(host, { languages: ['python'], caps: { memoryBytes: 256 * 1024 * 1024 } });
  try {
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'code_execution', input: { code: 'len(bytearray(512 * 1024 * 1024))', language: 'python' } });
    const content = outcome.result.structuredContent as { error?: { kind: string; message: string } };
    assert.equal(content.error?.kind, 'sandbox', JSON.stringify(content));
    assert.match(content.error!.message, /memory cap \(address space 256 MiB\)/);
  } finally {
    await ce.close();
    await host.close();
  }
});
