/**
 * code_execution's inner-call timeout (innerCallTimeoutMs + innerCallGraceMs) takes the host's
 * rule for timeouts: Infinity is none (an inner call that takes a while completes; Node's timers
 * would have fired after 1 ms), and anything not above 0 is an error when registering, not a
 * refusal of every inner call later.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { registerSlowishTool } from '../helpers/tools.ts';

test('innerCallTimeoutMs: Infinity lets an inner call take its time', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  registerSlowishTool(host);
  const ce = registerCodeExecution(host, { languages: ['javascript'], innerCallTimeoutMs: Infinity });
  try {
    const stream = host.openStream('c');
    const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code: 'const r = await tools.slowish({}); return r;' } });
    const envelope = outcome.result.structuredContent as { ok?: boolean; value?: unknown };
    assert.equal(envelope?.ok, true, JSON.stringify(outcome.result));
    assert.match(JSON.stringify(envelope.value), /done/);
    stream.end();
  } finally {
    await ce.close();
    await host.close();
  }
});

test('an inner-call timeout that is not above 0 is an error when code_execution is registered', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  try {
    for (const innerCallTimeoutMs of [NaN, -5_000, '100'] as unknown as number[]) {
      assert.throws(() => registerCodeExecution(host, { languages: ['javascript'], innerCallTimeoutMs }), /innerCallTimeoutMs \+ innerCallGraceMs must be milliseconds above 0/);
    }
  } finally {
    await host.close();
  }
});
