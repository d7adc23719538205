/**
 * The fallback for a tool no one can call: a server that lists a tool with
 * `execution.taskSupport: "required"` without declaring `capabilities.tasks` (a real SDK
 * server process over stdio). The tool is left out with a diagnostic naming it; an
 * `"optional"` tool is listed and called plainly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText } from '../../src/host/results.ts';

const SERVER = fileURLToPath(new URL('./fixtures/task-required-server.mjs', import.meta.url));

test('a taskSupport "required" tool of a server without the tasks capability is not listed, with a task-required-unsupported diagnostic', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const diagnostics: { serverId?: string; code: string; message: string }[] = [];
  host.on('diagnostic', (d) => diagnostics.push(d));
  try {
    await host.connectServer({ id: 'tr', command: process.execPath, args: [SERVER] });
    const names = host.listTools().map((t) => t.name);
    assert.ok(!names.includes('tr--research'), names.join(', '));
    assert.ok(names.includes('tr--maybe') && names.includes('tr--plain'), names.join(', '));
    const diagnostic = diagnostics.find((d) => d.code === 'task-required-unsupported');
    assert.ok(diagnostic, JSON.stringify(diagnostics));
    assert.equal(diagnostic.serverId, 'tr');
    assert.match(diagnostic.message, /tr\/research/);

    const inferenceId = host.beginInference({ conversationId: 'c' });
    const maybe = await host.dispatch({ inferenceId, name: 'tr--maybe', input: {} });
    assert.equal(resultText(maybe.result), 'maybe: ok');
  } finally {
    await host.close();
  }
});

test('a task that ends "failed" gives the caller the tool\'s own error result (tasks/result), not a bare "Task failed"', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  try {
    await host.connectServer({ id: 'ft', command: process.execPath, args: [fileURLToPath(new URL('./fixtures/failing-task-server.mjs', import.meta.url))] });
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'ft--fails', input: {} });
    assert.match(resultText(outcome.result), /the disk is full/, JSON.stringify(outcome));
    assert.equal(outcome.result.isError, true);
  } finally {
    await host.close();
  }
});
