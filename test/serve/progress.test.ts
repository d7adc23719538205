/**
 * Progress in serve mode: a client request carrying a progress token receives a direct call's
 * own progress, and for code_execution how the script is going (inner calls done, and its inner
 * calls' own progress between those steps). Values only ever increase, as MCP requires.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectClient, serveFixtureHost } from './fixture-host.ts';

function increasing(values: number[]): boolean {
  return values.every((v, i) => i === 0 || v > values[i - 1]!);
}

test("a direct call's progress reaches the client that asked for it", async () => {
  const served = await serveFixtureHost();
  const { client, progress: seen } = await connectClient(served.serving.url);
  try {
    // onprogress makes the client send a progress token; what arrived is read at the transport.
    const result = await client.callTool({ name: 'progressive', arguments: { steps: 3 } }, undefined, { onprogress: () => {} });
    assert.deepEqual(result.content, [{ type: 'text', text: 'reported' }]);
    assert.deepEqual(seen, [
      { progress: 1, total: 3, message: 'step 1 of 3' },
      { progress: 2, total: 3, message: 'step 2 of 3' },
      { progress: 3, total: 3, message: 'step 3 of 3' },
    ]);
  } finally {
    await client.close();
    await served.close();
  }
});

test('code_execution reports inner calls done, with their own progress in between', async () => {
  const served = await serveFixtureHost();
  const { client, progress: seen } = await connectClient(served.serving.url);
  try {
    const result = await client.callTool(
      { name: 'code_execution', arguments: { code: 'await tools.progressive({ steps: 2 }); await tools.progressive({ steps: 2 }); return "ok"' } },
      undefined,
      { onprogress: () => {} },
    );
    assert.equal((result.structuredContent as { value?: unknown })?.value, 'ok', JSON.stringify(result));
    assert.deepEqual(
      seen.map((p) => [p.progress, p.message]),
      [
        [0.5, 'progressive: step 1 of 2'],
        [0.99, 'progressive: step 2 of 2'],
        [1, '1 tool call done (last: progressive, completed)'],
        [1.5, 'progressive: step 1 of 2'],
        [1.99, 'progressive: step 2 of 2'],
        [2, '2 tool calls done (last: progressive, completed)'],
      ],
    );
    assert.ok(increasing(seen.map((p) => p.progress)));
  } finally {
    await client.close();
    await served.close();
  }
});

test('without a progress token nothing is reported and the tool is told nobody asked', async () => {
  const served = await serveFixtureHost();
  const { client, progress: seen } = await connectClient(served.serving.url);
  try {
    const script = await client.callTool({ name: 'code_execution', arguments: { code: 'return await tools.progressive({ steps: 2 })' } });
    assert.equal((script.structuredContent as { value?: unknown })?.value, 'nobody asked', JSON.stringify(script));
    assert.deepEqual(seen, []);
  } finally {
    await client.close();
    await served.close();
  }
});

test("a script's output reaches the client as progress while it runs, before the result", async () => {
  const served = await serveFixtureHost();
  const { client, progress: seen } = await connectClient(served.serving.url);
  try {
    let seenAtResult = -1;
    const result = await client
      .callTool(
        { name: 'code_execution', arguments: { code: 'console.log("working on it"); await tools.progressive({ steps: 1 }); print("done here"); return "ok"' } },
        undefined,
        { onprogress: () => {} },
      )
      .then((r) => {
        seenAtResult = seen.length;
        return r;
      });
    assert.equal((result.structuredContent as { value?: unknown })?.value, 'ok', JSON.stringify(result));
    const messages = seen.slice(0, seenAtResult).map((p) => p.message ?? '');
    assert.ok(messages.some((m) => m.includes('working on it')), JSON.stringify(seen));
    assert.ok(messages.some((m) => m.includes('done here')), JSON.stringify(seen));
    assert.ok(increasing(seen.map((p) => p.progress)));
  } finally {
    await client.close();
    await served.close();
  }
});
