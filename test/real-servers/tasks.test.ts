/**
 * MCP tasks against the real server-everything: its `simulate-research-query` declares
 * `execution.taskSupport: "required"`, so a plain `tools/call` always fails. toolcell must
 * never list a tool it cannot call; the others keep working.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText } from '../../src/host/results.ts';
import { waitUntil } from '../helpers/peers.ts';
import { officialServer } from './servers.ts';

const TASK_TOOL = 'simulate-research-query';

/** True when the server's own tools/list answer (on the wire) contained `name`. */
function serverListed(wire: ReturnType<typeof officialServer>['wire'], name: string): boolean {
  return wire.frames.some((f) => {
    const result = (f.message as { result?: { tools?: { name: string }[] } }).result;
    return f.direction === 'in' && Array.isArray(result?.tools) && result.tools.some((t) => t.name === name);
  });
}

test('server-everything: a taskSupport "required" tool is left out of the listing with a diagnostic; other tools still work', async () => {
  const everything = officialServer('everything', 'ev');
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const diagnostics: { serverId?: string; code: string; message: string }[] = [];
  host.on('diagnostic', (d) => diagnostics.push(d));
  try {
    await host.connectServer(everything.config);
    // server-everything registers its task tool after initialization and re-lists; wait for the listing that has it.
    await waitUntil(() => serverListed(everything.wire, TASK_TOOL), 'server-everything to list its task tool', 15_000);
    const diagnostic = await waitUntil(
      () => diagnostics.find((d) => d.code === 'task-required-unsupported' && d.message.includes(TASK_TOOL)),
      'the task-required-unsupported diagnostic',
    );
    assert.equal(diagnostic.serverId, 'ev');
    await waitUntil(() => host.listTools().some((t) => t.name === 'ev--echo'), 'ev--echo listed');

    const names = host.listTools().map((t) => t.name);
    assert.ok(!names.includes(`ev--${TASK_TOOL}`), `ev--${TASK_TOOL} must not be listed: ${names.join(', ')}`);
    assert.ok(names.includes('ev--get-sum'));

    const inferenceId = host.beginInference({ conversationId: 'c' });
    const echo = await host.dispatch({ inferenceId, name: 'ev--echo', input: { message: 'still here' } });
    assert.equal(echo.status, 'completed');
    assert.equal(resultText(echo.result), 'Echo: still here');
  } finally {
    await host.close();
  }
});
