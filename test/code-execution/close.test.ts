/**
 * `close()` cancels everything the tool started and returns within its bound: the Python
 * interpreter's start-up probe (a `python` that hangs while describing itself) is killed, not
 * waited for; a spinning JavaScript run is ended, not waited for; and a host process that
 * closes the tool while its probe hangs exits promptly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { CLOSE_LIMIT_MS } from '../../src/code-execution/runners.ts';
import { processAlive, scratchDir, waitUntil } from '../helpers/peers.ts';

/** A `python` that writes its pid and then hangs, as a broken shim or a stuck disk would. */
function hangingPython(): { python: string; pidFile: string } {
  const dir = scratchDir('toolcell-close-');
  const pidFile = path.join(dir, 'pid');
  const python = path.join(dir, 'python3');
  fs.writeFileSync(python, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 120\n`, { mode: 0o755 });
  return { python, pidFile };
}

const alive = processAlive;

test('close() while the Python start-up probe hangs kills the probe and returns within its bound', async () => {
  const { python, pidFile } = hangingPython();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const ce = registerCodeExecution(host, { languages: ['python'], python: { python }, isolation: 'none' });
  const stream = host.openStream('probe');
  const run = host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code: '1', language: 'python' } });
  const pid = await waitUntil(() => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) || undefined : undefined), 'the probe started', 60_000);
  const started = performance.now();
  await ce.close();
  const took = performance.now() - started;
  assert.ok(took < CLOSE_LIMIT_MS, `close() took ${took.toFixed(0)} ms`);
  await waitUntil(() => !alive(pid), 'the probe was killed', 5_000);
  const out = await run;
  assert.equal(out.result.isError, true);
  await host.close();
});

test('close() while a JavaScript run spins ends it and returns within its bound', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  let marked = false;
  host.registerTool({ name: 'mark', description: 'marks', inputSchema: { type: 'object' }, handler: async () => ((marked = true), textResult('ok')) });
  const ce = registerCodeExecution(host, { languages: ['javascript'] });
  const stream = host.openStream('spin');
  const run = host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code: 'await tools.mark({});\nwhile (true) {}', time_limit_ms: 120_000 } });
  await waitUntil(() => marked, 'the script ran', 60_000);
  const started = performance.now();
  await ce.close();
  const took = performance.now() - started;
  assert.ok(took < CLOSE_LIMIT_MS, `close() took ${took.toFixed(0)} ms`);
  const out = await run;
  assert.equal((out.result.structuredContent as { ok?: boolean } | undefined)?.ok ?? false, false);
  await host.close();
});

test('a host process that closes the tool while the probe hangs exits promptly', async () => {
  const { python, pidFile } = hangingPython();
  const src = path.resolve('src');
  const script = `
    import pino from 'pino';
    import fs from 'node:fs';
    import { ToolHost } from '${src}/host/tool-host.ts';
    import { registerCodeExecution } from '${src}/code-execution/index.ts';
    const host = new ToolHost({ logger: pino({ level: 'silent' }) });
    const ce = registerCodeExecution(host, { languages: ['python'], python: { python: ${JSON.stringify(python)} }, isolation: 'none' });
    const stream = host.openStream('p');
    void host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code: '1', language: 'python' } });
    while (!fs.existsSync(${JSON.stringify(pidFile)})) await new Promise((r) => setTimeout(r, 10));
    console.log('closing ' + Date.now());
    await ce.close();
    await host.close();
    console.log('closed ' + Date.now());
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = await new Promise<number>((resolve) => child.once('exit', () => resolve(Date.now())));
  const closingAt = Number(/closing (\d+)/.exec(out)?.[1]);
  assert.match(out, /closed \d+/, 'the host closed');
  // From close() called to the process gone: nothing it started holds it open (the hung probe
  // did, for its 30 s timeout).
  assert.ok(exited - closingAt < CLOSE_LIMIT_MS, `the process exited ${exited - closingAt} ms after close() was called`);
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.equal(alive(pid), false, 'the probe is gone');
});
