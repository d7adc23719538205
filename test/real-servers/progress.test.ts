/**
 * Progress crosses the boundary: a caller's `onProgress` receives a server tool's
 * `notifications/progress` (server-everything's long-running operation) and a built-in's
 * `ctx.progress` reports; nothing is asked for, or relayed, when the caller did not ask.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText, textResult } from '../../src/host/results.ts';
import type { ProgressUpdate } from '../../src/host/types.ts';
import { officialServer } from './servers.ts';

const silent = () => pino({ level: 'silent' });

test("everything's long-running operation reports each step to the caller's onProgress, with its total", async () => {
  const everything = officialServer('everything', 'ev');
  const host = new ToolHost({ logger: silent() });
  try {
    await host.connectServer(everything.config);
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const seen: ProgressUpdate[] = [];
    const outcome = await host.dispatch({
      inferenceId,
      name: 'ev--trigger-long-running-operation',
      input: { duration: 0.4, steps: 4 },
      onProgress: (p) => seen.push(p),
    });
    assert.equal(outcome.status, 'completed', resultText(outcome.result));
    assert.deepEqual(seen, [1, 2, 3, 4].map((progress) => ({ progress, total: 4 })));
    const call = everything.wire.frames.find((f) => f.direction === 'out' && 'method' in f.message && f.message.method === 'tools/call')!;
    assert.notEqual((call.message as any).params._meta?.progressToken, undefined, 'the request carries a progress token');

    // Without onProgress, no token is sent and the server reports nothing.
    const before = everything.wire.frames.length;
    const quiet = await host.dispatch({ inferenceId, name: 'ev--trigger-long-running-operation', input: { duration: 0.2, steps: 2 } });
    assert.equal(quiet.status, 'completed');
    const later = everything.wire.frames.slice(before);
    const request = later.find((f) => f.direction === 'out' && 'method' in f.message && f.message.method === 'tools/call')!;
    assert.equal((request.message as any).params._meta?.progressToken, undefined);
    assert.ok(!later.some((f) => 'method' in f.message && f.message.method === 'notifications/progress'));
  } finally {
    await host.close();
  }
});

test("a built-in reports through ctx.progress; reports after the terminal are dropped; a throwing listener fails nothing", async () => {
  const host = new ToolHost({ logger: silent() });
  let late: ((p: ProgressUpdate) => void) | undefined;
  host.registerTool({
    name: 'steps',
    description: 'Reports three steps',
    inputSchema: { type: 'object' },
    handler: async (_args, ctx) => {
      for (let i = 1; i <= 3; i++) ctx.progress({ progress: i, total: 3, message: `step ${i}` });
      late = ctx.progress;
      return textResult('done');
    },
  });
  const diagnostics: string[] = [];
  host.on('diagnostic', (d) => diagnostics.push(d.code));
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const seen: ProgressUpdate[] = [];
  const outcome = await host.dispatch({ inferenceId, name: 'steps', input: {}, onProgress: (p) => seen.push(p) });
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(seen.map((p) => p.message), ['step 1', 'step 2', 'step 3']);
  late!({ progress: 4 });
  assert.equal(seen.length, 3, 'no progress after the terminal');

  // Without onProgress the handler's progress() is a no-op; a listener that throws is reported, not fatal.
  assert.equal((await host.dispatch({ inferenceId, name: 'steps', input: {} })).status, 'completed');
  const thrown = await host.dispatch({ inferenceId, name: 'steps', input: {}, onProgress: () => { throw new Error('listener bug'); } });
  assert.equal(thrown.status, 'completed');
  assert.equal(diagnostics.filter((c) => c === 'progress-listener-failed').length, 3);
  await host.close();
});
