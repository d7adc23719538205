/**
 * The edges of code_execution's promises (issue 9): a stream's end in the same tick as the call
 * kills its script before it does anything; a conversation is never refused because of a call
 * that has already ended; no inner call opens after its parent's terminal; `whenBusy: 'wait'`
 * queues a second script (bounded, cancellable). Real JavaScript sandbox and real python3.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost, type ToolHostOptions } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution, type CodeExecutionOptions } from '../../src/code-execution/index.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import type { DispatchOutcome } from '../../src/host/types.ts';
import { waitUntil } from '../helpers/peers.ts';
import { registerWaitTool } from '../helpers/tools.ts';

type Lang = 'javascript' | 'python';

function rig(hostOptions: ToolHostOptions = {}, ceOptions: CodeExecutionOptions = {}) {
  const host = new ToolHost({ logger: pino({ level: 'silent' }), ...hostOptions });
  const events: HostLifecycleEvent[] = [];
  const refusals: { name: string; code: string; parentToolCallId?: string }[] = [];
  const late: string[] = [];
  host.on('lifecycle', (e) => events.push(e));
  host.on('refused', (r) => refusals.push(r));
  host.on('late-result', (r) => late.push(r.toolCallId));
  const marks: unknown[] = [];
  host.registerTool({
    name: 'mark',
    description: 'Records that it ran',
    inputSchema: { type: 'object' },
    classes: ['shell'],
    handler: async (args) => {
      marks.push(args);
      return textResult('marked');
    },
  });
  const releases = registerWaitTool(host);
  const ce = registerCodeExecution(host, ceOptions);
  return {
    host,
    events,
    refusals,
    late,
    marks,
    releases,
    /** Events and refusals of calls made by the script of `parent`. */
    children: (parent: string) => ({
      events: events.filter((e) => e.parentToolCallId === parent),
      refusals: refusals.filter((r) => r.parentToolCallId === parent),
    }),
    async close() {
      await ce.close();
      await host.close();
    },
  };
}

const summary = (o: { result: { structuredContent?: Record<string, unknown> } }) => o.result.structuredContent as any;
const text = (o: DispatchOutcome) => String(o.result.content[0]?.text);

const THREE_MARKS: Record<Lang, string> = {
  javascript: 'for (let i = 0; i < 3; i++) await tools.mark({ i }); return "ran";',
  python: 'for i in range(3):\n    await tools.mark({"i": i})\n"ran"',
};

for (const language of ['javascript', 'python'] as const) {
  test(`${language}: a stream's end in the same tick as the call kills the script before its first inner call`, async () => {
    const r = rig();
    try {
      const stream = r.host.openStream('c');
      const inferenceId = stream.beginInference();
      const pending = r.host.dispatch({ inferenceId, name: 'code_execution', input: { code: THREE_MARKS[language], language } });
      assert.equal(stream.end('the response ended'), 1);
      const parent = await pending;
      assert.equal(parent.status, 'aborted');
      // The handler's own outcome arrives late and is consumed: the script has finished by then.
      await waitUntil(() => r.late.includes(parent.toolCallId!), 'the aborted execution returned');
      assert.deepEqual(r.children(parent.toolCallId!), { events: [], refusals: [] }, 'the script never tried an inner call');
      assert.equal(r.marks.length, 0);
    } finally {
      await r.close();
    }
  });

  test(`${language}: the next execution right after an aborted one runs (never "already running")`, async () => {
    const r = rig();
    // A script that ignores the cancel at its next await: only an interrupt or a kill stops it.
    const stubborn: Record<Lang, string> = {
      javascript: 'await tools.mark({ started: true }); while (true) {}',
      python: 'import time\nawait tools.mark({"started": True})\nwhile True:\n    time.sleep(0.01)',
    };
    try {
      for (const round of [1, 2]) {
        const stream = r.host.openStream('same');
        const inferenceId = stream.beginInference();
        const pending = r.host.dispatch({ inferenceId, name: 'code_execution', input: { code: stubborn[language], language } });
        await waitUntil(() => r.marks.length === round, 'the script started');
        stream.end();
        assert.equal((await pending).status, 'aborted');
        const next = await r.host.dispatch({
          inferenceId: r.host.beginInference({ conversationId: 'same' }),
          name: 'code_execution',
          input: { code: language === 'javascript' ? 'return 7' : '7', language },
        });
        assert.equal(next.status, 'completed');
        assert.equal(summary(next)?.value, 7, `round ${round}: ${text(next)}`);
      }
    } finally {
      await r.close();
    }
  });
}

test("the host's safety timeout on code_execution kills the script: nothing runs after the parent's terminal", async () => {
  // The script would make its second call 3 s after it started; the host gives up on it at 1.5 s.
  const r = rig({ callTimeoutMs: 1500 });
  try {
    const inferenceId = r.host.beginInference({ conversationId: 'c' });
    const parent = await r.host.dispatch({
      inferenceId,
      name: 'code_execution',
      input: { code: 'await tools.mark({ first: true }); const t = Date.now(); while (Date.now() - t < 3000) {} await tools.mark({ second: true }); return 1;' },
    });
    assert.equal(parent.status, 'failed');
    await waitUntil(() => r.late.includes(parent.toolCallId!), 'the execution returned');
    assert.ok(!r.marks.some((m: any) => m.second), "the script was killed at its parent's terminal");
    const { events, refusals } = r.children(parent.toolCallId!);
    assert.deepEqual(refusals, [], 'the script never got as far as trying');
    const parentEnd = r.events.find((e) => e.toolCallId === parent.toolCallId && e.phase === 'failed')!;
    assert.ok(events.filter((e) => e.phase === 'started').every((e) => e.at <= parentEnd.at));
  } finally {
    await r.close();
  }
});

test('a script call naming a parent that has ended is refused before it opens, with no event', async () => {
  const r = rig();
  try {
    const inferenceId = r.host.beginInference({ conversationId: 'c' });
    const parent = await r.host.dispatch({ inferenceId, name: 'mark', input: {} });
    assert.equal(parent.status, 'completed');
    const before = r.events.length;
    const child = await r.host.dispatch({ inferenceId, name: 'mark', input: { late: true }, parentToolCallId: parent.toolCallId! });
    assert.equal(child.status, 'refused');
    assert.equal(child.refusal?.code, 'parent_ended');
    assert.match(text(child), /parent call .* has already ended/);
    assert.equal(r.events.length, before, 'nothing was sent');
    assert.equal(r.marks.length, 1);
    // A parent the host does not know (a framework's own) is not this refusal's business.
    const foreign = await r.host.dispatch({ inferenceId, name: 'mark', input: {}, parentToolCallId: 'framework_parent_1' });
    assert.equal(foreign.status, 'completed');
  } finally {
    await r.close();
  }
});

test("python: a script that survives its interrupt cannot open an inner call after its parent's terminal", async () => {
  const r = rig({}, { python: { interruptGraceMs: 50, killGraceMs: 3000 } });
  const code = [
    'import time',
    'await tools.mark({"first": True})',
    'try:',
    '    time.sleep(2)',
    'except BaseException:',
    '    pass',
    'await tools.mark({"after": True})',
  ].join('\n');
  try {
    const stream = r.host.openStream('c');
    const inferenceId = stream.beginInference();
    const pending = r.host.dispatch({ inferenceId, name: 'code_execution', input: { code, language: 'python' } });
    await waitUntil(() => r.marks.length === 1, 'the script started');
    stream.end();
    const parent = await pending;
    assert.equal(parent.status, 'aborted');
    await waitUntil(() => r.late.includes(parent.toolCallId!), 'the execution returned');
    const { events, refusals } = r.children(parent.toolCallId!);
    assert.deepEqual(events.map((e) => e.phase), ['started', 'completed'], 'only the first inner call opened');
    assert.deepEqual(r.marks, [{ first: true }]);
    assert.ok(refusals.every((x) => x.code === 'parent_ended'), JSON.stringify(refusals));
  } finally {
    await r.close();
  }
});

test("whenBusy 'refuse' (default): a second execution while the first's call is open is refused at once", async () => {
  const r = rig();
  try {
    const inferenceId = r.host.beginInference({ conversationId: 'c' });
    const first = r.host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'await tools.wait({}); return 1' } });
    await waitUntil(() => r.releases.length === 1, 'the first script is waiting');
    const second = await r.host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'return 2' } });
    assert.equal(second.status, 'completed');
    assert.equal(second.result.isError, true);
    assert.match(text(second), /already running/);
    r.releases[0]!();
    assert.equal(summary(await first).value, 1);
  } finally {
    await r.close();
  }
});

for (const language of ['javascript', 'python'] as const) {
  test(`${language}: whenBusy 'wait' runs two same-tick executions one after the other`, async () => {
    const r = rig({}, { whenBusy: 'wait' });
    const code: Record<Lang, [string, string]> = {
      javascript: ['await tools.mark({ n: 1 }); await tools.wait({}); return 1', 'await tools.mark({ n: 2 }); return 2'],
      python: ['await tools.mark({"n": 1})\nawait tools.wait({})\n1', 'await tools.mark({"n": 2})\n2'],
    };
    try {
      const inferenceId = r.host.beginInference({ conversationId: 'c' });
      const first = r.host.dispatch({ inferenceId, name: 'code_execution', input: { code: code[language][0], language } });
      const second = r.host.dispatch({ inferenceId, name: 'code_execution', input: { code: code[language][1], language } });
      await waitUntil(() => r.releases.length === 1, 'the first script holds the conversation');
      assert.deepEqual(r.marks, [{ n: 1 }], 'the second waits its turn');
      r.releases[0]!();
      const [a, b] = await Promise.all([first, second]);
      assert.equal(summary(a).value, 1, text(a));
      assert.equal(summary(b).value, 2, text(b));
      assert.deepEqual(r.marks, [{ n: 1 }, { n: 2 }]);
    } finally {
      await r.close();
    }
  });
}

test("whenBusy 'wait': past busyWaitMs the waiting call gets a clear error result and never runs", async () => {
  const r = rig({}, { whenBusy: 'wait', busyWaitMs: 150 });
  try {
    const inferenceId = r.host.beginInference({ conversationId: 'c' });
    const first = r.host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'await tools.wait({}); return 1' } });
    await waitUntil(() => r.releases.length === 1, 'the first script holds the conversation');
    const second = await r.host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'await tools.mark({}); return 2' } });
    assert.equal(second.status, 'completed');
    assert.equal(second.result.isError, true);
    assert.match(text(second), /busy for 150 ms; this one waited, then gave up and was not run/);
    r.releases[0]!();
    assert.equal(summary(await first).value, 1);
    assert.equal(r.marks.length, 0);
  } finally {
    await r.close();
  }
});

test("whenBusy 'wait': the stream's end aborts the waiting call, which never runs", async () => {
  const r = rig({}, { whenBusy: 'wait' });
  try {
    const holder = r.host.beginInference({ conversationId: 'c' });
    const first = r.host.dispatch({ inferenceId: holder, name: 'code_execution', input: { code: 'await tools.wait({}); return 1' } });
    await waitUntil(() => r.releases.length === 1, 'the first script holds the conversation');
    const stream = r.host.openStream('c');
    const second = r.host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code: 'await tools.mark({}); return 2' } });
    assert.equal(stream.end(), 1);
    const aborted = await second;
    assert.equal(aborted.status, 'aborted');
    await waitUntil(() => r.late.includes(aborted.toolCallId!), 'the waiting handler returned');
    r.releases[0]!();
    assert.equal(summary(await first).value, 1);
    assert.equal(r.marks.length, 0, 'the aborted waiter never ran');
    // The conversation is free again.
    const third = await r.host.dispatch({ inferenceId: holder, name: 'code_execution', input: { code: 'return 3' } });
    assert.equal(summary(third).value, 3);
  } finally {
    await r.close();
  }
});
