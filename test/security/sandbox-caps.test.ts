/**
 * Caps inside the OS layer: under bubblewrap a Python script wrote 1 GiB to its RAM-backed
 * `/tmp` with nothing stopping it. The private tmpfs now has a size (64 MiB by default), so a
 * write past it fails inside the script, and a script that does not catch that failure ends
 * with a `sandbox` error naming the cap. Needs bubblewrap; skipped where it does not work.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { ToolHost } from '../../src/host/tool-host.ts';
import { probeBwrap } from '../../src/runtime/isolation/probe.ts';

const bwrap = probeBwrap();

test('python under bubblewrap cannot write past the /tmp size', { skip: bwrap.ok ? false : 'bubblewrap does not work here' }, async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const ce = registerCodeExecution(host, { languages: ['python'], isolation: 'bwrap' });
  try {
    const code = [
      'written = 0',
      'try:',
      '    with open("/tmp/fill", "wb") as f:',
      '        for _ in range(128):',
      '            f.write(b"x" * (1 << 20))',
      '            f.flush()',
      '            written += 1',
      '    error = None',
      'except OSError as e:',
      '    error = str(e)',
      '{"written_mib": written, "error": error}',
    ].join('\n');
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'code_execution', input: { code, language: 'python' } });
    const value = (outcome.result.structuredContent as { value?: { written_mib: number; error: string | null } }).value;
    assert.ok(value, JSON.stringify(outcome.result.structuredContent));
    assert.match(value.error ?? '', /No space left on device/, JSON.stringify(value));
    assert.ok(value.written_mib <= 64, `${value.written_mib} MiB written`);
  } finally {
    await ce.close();
    await host.close();
  }
});

test('python under bubblewrap writing 1 GiB to /tmp ends the run at the /tmp cap', { skip: bwrap.ok ? false : 'bubblewrap does not work here' }, async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const ce = registerCodeExecution(host, { languages: ['python'], isolation: 'bwrap' });
  try {
    const code = [
      'with open("/tmp/fill", "wb") as f:',
      '    for _ in range(1024):',
      '        f.write(b"x" * (1 << 20))',
      '        f.flush()',
      'import os',
      'os.path.getsize("/tmp/fill")',
    ].join('\n');
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'code_execution', input: { code, language: 'python' } });
    const content = outcome.result.structuredContent as { error?: { kind: string; message: string }; value?: unknown };
    assert.equal(content.error?.kind, 'sandbox', JSON.stringify(content));
    assert.match(content.error!.message, /\/tmp is full \(limit 64 MiB\): OSError: \[Errno 28\] No space left on device/);
  } finally {
    await ce.close();
    await host.close();
  }
});
