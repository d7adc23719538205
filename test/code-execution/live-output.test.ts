/**
 * Live output (issue 44, item 5): what a script logs or prints reaches the host's
 * `script-output` event, and a caller that asked for progress as progress messages, while the
 * script runs — before its result — in JavaScript and Python; bounded per notification.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { LIVE_OUTPUT_CHARS } from '../../src/code-execution/live-output.ts';
import { registerWaitTool } from '../helpers/tools.ts';
import { waitUntil } from '../helpers/peers.ts';

const SCRIPTS = {
  javascript: 'console.log("first line"); await tools.wait({}); print("second line"); return 1',
  python: 'print("first line")\nawait tools.wait({})\nprint("second line")\n1',
} as const;

for (const language of ['javascript', 'python'] as const) {
  test(`${language}: output reaches the host event and progress while the script waits on a tool`, async () => {
    const host = new ToolHost({ logger: pino({ level: 'silent' }) });
    const releases = registerWaitTool(host);
    const ce = registerCodeExecution(host, { languages: ['javascript', 'python'] });
    const events: { text: string; toolCallId: string }[] = [];
    host.on('script-output', (e) => events.push(e));
    const progress: { progress: number; message?: string }[] = [];
    try {
      const inferenceId = host.beginInference({ conversationId: `live-${language}` });
      let resultAt = 0;
      const pending = host
        .dispatch({ inferenceId, name: 'code_execution', input: { code: SCRIPTS[language], language }, onProgress: (p) => progress.push(p) })
        .then((out) => {
          resultAt = events.length;
          return out;
        });
      // The first line arrives while the tool still holds the script: the result cannot exist yet.
      await waitUntil(() => events.some((e) => e.text.includes('first line')), 'the first line, live');
      assert.equal(resultAt, 0);
      assert.ok(progress.some((p) => p.message?.includes('first line')), JSON.stringify(progress));
      await waitUntil(() => releases.length === 1, 'the tool call');
      releases[0]!();
      const out = await pending;
      assert.equal(out.status, 'completed');
      assert.ok(events.some((e) => e.text.includes('second line')), JSON.stringify(events));
      assert.ok(events.every((e) => e.toolCallId === out.toolCallId));
      // Every progress value increases, as MCP requires.
      assert.ok(progress.every((p, i) => i === 0 || p.progress > progress[i - 1]!.progress), JSON.stringify(progress));
    } finally {
      await ce.close();
      await host.close();
    }
  });
}

test('a flood of output is coalesced: each notification is bounded and says what it left out', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const ce = registerCodeExecution(host, {});
  const events: { text: string; dropped: number }[] = [];
  host.on('script-output', (e) => events.push(e));
  try {
    const inferenceId = host.beginInference({ conversationId: 'flood' });
    const out = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'for (let i = 0; i < 5000; i++) console.log("line " + i); return 1' } });
    assert.equal(out.status, 'completed');
    assert.ok(events.length >= 1 && events.length < 50, String(events.length));
    for (const e of events) assert.ok(e.text.length <= LIVE_OUTPUT_CHARS);
    assert.ok(events.reduce((n, e) => n + e.dropped, 0) > 0);
  } finally {
    await ce.close();
    await host.close();
  }
});
