/**
 * The call's abort signal is made lazily, on first read; an abort that comes first must still
 * reach the tool (issue 9, item 1), and a call the host ends on its own (safety timeout) aborts
 * the signal too, so its work stops with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';

const silent = () => pino({ level: 'silent' });

/** Resolves with the late outcome's info once the host consumed a result after the call ended. */
function lateResult(host: ToolHost, toolCallId: () => string | undefined): Promise<void> {
  return new Promise((resolve) => {
    host.on('late-result', (info) => {
      if (info.toolCallId === toolCallId()) resolve();
    });
  });
}

test('an abort before the tool first reads its signal still aborts it (stream end in the same tick)', async () => {
  const host = new ToolHost({ logger: silent() });
  const seen: { aborted: boolean; reason?: string }[] = [];
  host.registerTool({
    name: 'late_reader',
    description: 'reads its signal only after an await',
    inputSchema: { type: 'object' },
    classes: ['shell'],
    handler: async (_args, ctx) => {
      await new Promise((resolve) => setImmediate(resolve));
      const signal = ctx.signal;
      seen.push({ aborted: signal.aborted, reason: (signal.reason as Error | undefined)?.message });
      return textResult('ran anyway');
    },
  });
  try {
    const stream = host.openStream('c');
    const inferenceId = stream.beginInference();
    let id: string | undefined;
    const late = lateResult(host, () => id);
    const pending = host.dispatch({ inferenceId, name: 'late_reader', input: {} });
    assert.equal(stream.end('the response ended'), 1);
    const outcome = await pending;
    id = outcome.toolCallId;
    assert.equal(outcome.status, 'aborted');
    await late;
    assert.deepEqual(seen, [{ aborted: true, reason: 'the response ended' }], 'the first read of the signal sees the abort');
  } finally {
    await host.close();
  }
});

test('the safety timeout aborts the signal of the call it ended', async () => {
  const host = new ToolHost({ logger: silent() });
  let aborted: Promise<string>;
  host.registerTool({
    name: 'hang',
    description: 'never answers unless aborted',
    inputSchema: { type: 'object' },
    classes: ['shell'],
    handler: (_args, ctx) => {
      aborted = new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve((ctx.signal.reason as Error).message)));
      return new Promise(() => {});
    },
  });
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({ inferenceId, name: 'hang', input: {}, timeoutMs: 30 });
    assert.equal(outcome.status, 'failed');
    assert.match(await aborted!, /timed out/);
  } finally {
    await host.close();
  }
});
