/**
 * Approvals end to end, in both languages: one up-front request per script, decline runs
 * nothing, the just-in-time backstop with the script line, conversation grants and revocation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult, resultText } from '../../src/host/results.ts';
import type { ApprovalGate, ApprovalRequest, BatchApprovalDecision, BatchApprovalRequest } from '../../src/host/types.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';

type Answer = BatchApprovalDecision | Error;

/** A gate for `send_email` that answers up-front requests from a script and records everything asked. */
function recordingGate(batchAnswers: Answer[], callAnswer: boolean = true) {
  const batches: BatchApprovalRequest[] = [];
  const calls: ApprovalRequest[] = [];
  const gate: ApprovalGate = {
    required: (call) => call.tool === 'send_email',
    decide: async (call) => {
      calls.push(call);
      return callAnswer;
    },
    decideBatch: async (request) => {
      batches.push(request);
      const answer = batchAnswers.shift() ?? false;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { gate, batches, calls };
}

function setup(batchAnswers: Answer[], callAnswer = true, engine: 'quickjs' | 'v8' = 'quickjs') {
  const { gate, batches, calls } = recordingGate(batchAnswers, callAnswer);
  const host = new ToolHost({ logger: pino({ level: 'silent' }), approvalGate: gate });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  const sent = { count: 0 };
  host.registerTool({
    name: 'send_email',
    description: 'Sends an email',
    inputSchema: { type: 'object' },
    classes: ['comms'],
    handler: async () => textResult(`sent ${++sent.count}`),
  });
  host.registerTool({
    name: 'lookup',
    description: 'Looks something up',
    inputSchema: { type: 'object' },
    classes: ['memory'],
    handler: async () => textResult('found'),
  });
  const ce = registerCodeExecution(host, { languages: ['javascript', 'python'], engine });
  let n = 0;
  const run = async (code: string, language: 'javascript' | 'python', conversationId = 'conv') => {
    const inferenceId = host.beginInference({ conversationId });
    const modelCallId = `toolu_${++n}`;
    const outcome = await host.dispatch({ inferenceId, modelCallId, name: 'code_execution', input: { code, language } });
    return { outcome, text: resultText(outcome.result), modelCallId };
  };
  const emailEvents = () => events.filter((e) => e.tool === 'send_email');
  return { host, ce, batches, calls, sent, events, emailEvents, run, close: async () => { await ce.close(); await host.close(); } };
}

const FORTY = {
  javascript: 'for (let i = 0; i < 40; i++) {\n  await tools.send_email({ i });\n}\nawait tools.lookup({});\nreturn "ok";',
  python: 'for i in range(40):\n    await tools.send_email(i=i)\nawait tools.lookup({})\nprint("ok")',
};

for (const language of ['javascript', 'python'] as const) {
  test(`${language}: a script with 40 calls to one gated tool asks once, and its calls are never pending`, async () => {
    const rig = setup([true]);
    try {
      const { outcome, text, modelCallId } = await rig.run(FORTY[language], language);
      assert.equal(outcome.status, 'completed', text);
      assert.equal(outcome.result.isError, undefined, text);
      assert.equal(rig.batches.length, 1, 'asked once');
      const batch = rig.batches[0]!;
      assert.deepEqual(batch.tools.map((t) => [t.tool, t.lines]), [['send_email', [2]]], 'only the gated tool, with its line');
      assert.equal(batch.modelCallId, modelCallId);
      assert.equal(batch.parentToolCallId, outcome.toolCallId);
      assert.equal(batch.language, language);
      assert.equal(rig.calls.length, 0, 'no call was asked about one by one');
      assert.equal(rig.sent.count, 40);
      const phases = rig.emailEvents().map((e) => e.phase);
      assert.equal(phases.filter((p) => p === 'started').length, 40);
      assert.equal(phases.includes('pending'), false, 'pre-approved calls report started without pending');
      assert.deepEqual(rig.host.approvals.list('conv'), [], 'an execution grant is not a conversation grant');
    } finally {
      await rig.close();
    }
  });

  test(`${language}: declined, or the gate failing, runs nothing (provider never called, no lifecycle events)`, async () => {
    const rig = setup([false, new Error('the approval service is down')]);
    try {
      for (const expected of ['declined', 'the approval gate failed: the approval service is down']) {
        const { outcome, text } = await rig.run(FORTY[language], language);
        assert.equal(outcome.status, 'completed');
        assert.equal(outcome.result.isError, true);
        assert.match(text, /^approval declined; nothing ran/);
        assert.ok(text.includes(expected), text);
      }
      assert.equal(rig.sent.count, 0, 'the provider was never called');
      assert.deepEqual(rig.emailEvents(), [], 'no lifecycle event for the gated tool');
      assert.equal(rig.events.filter((e) => e.tool === 'lookup').length, 0, 'nothing at all ran');
    } finally {
      await rig.close();
    }
  });

  test(`${language}: a computed tool name gets its own pending request, with the script line of the call`, async () => {
    const rig = setup([]);
    try {
      const code = language === 'javascript'
        ? 'const name = ["send", "email"].join("_");\nconst r = await tools.lookup({});\n\nawait tools[name]({ to: "x" });\nreturn "ok";'
        : 'name = "_".join(["send", "email"])\nr = await tools.lookup({})\n\nawait getattr(tools, name)(to="x")\nprint("ok")';
      const { outcome, text, modelCallId } = await rig.run(code, language);
      assert.equal(outcome.result.isError, undefined, text);
      assert.equal(rig.batches.length, 0, 'the scan saw no gated tool: nothing asked up front');
      assert.equal(rig.calls.length, 1);
      const request = rig.calls[0]!;
      assert.equal(request.tool, 'send_email');
      assert.equal(request.callSite?.line, 4, `line of the call: ${JSON.stringify(request.callSite)}`);
      assert.ok((request.callSite?.column ?? 0) > 0, 'and its column');
      assert.equal(request.parentToolCallId, outcome.toolCallId);
      assert.equal(request.parentModelCallId, modelCallId);
      assert.deepEqual(rig.emailEvents().map((e) => e.phase), ['pending', 'started', 'completed']);
    } finally {
      await rig.close();
    }
  });

  test(`${language}: a conversation grant is not asked again in the next execution, and is asked again after revocation`, async () => {
    const rig = setup([{ approved: true, scope: 'conversation' }, true]);
    try {
      const code = language === 'javascript' ? 'await tools.send_email({});\nreturn 1;' : 'await tools.send_email({})';
      await rig.run(code, language);
      assert.equal(rig.batches.length, 1);
      assert.deepEqual(rig.host.approvals.list('conv').map((g) => g.tool), ['send_email']);
      const second = await rig.run(code, language);
      assert.equal(second.outcome.result.isError, undefined, second.text);
      assert.equal(rig.batches.length, 1, 'not asked again in the same conversation');
      assert.equal(rig.calls.length, 0);
      // Another conversation has no grant.
      await rig.run(code, language, 'other');
      assert.equal(rig.batches.length, 2);
      assert.equal(rig.host.approvals.revoke('conv', 'send_email'), 1);
      assert.deepEqual(rig.host.approvals.list('conv'), []);
      const third = await rig.run(code, language);
      assert.match(third.text, /^approval declined; nothing ran/, 'asked again after revocation (and declined by default)');
      assert.equal(rig.batches.length, 3);
      assert.equal(rig.sent.count, 3);
      assert.equal(rig.emailEvents().some((e) => e.phase === 'pending'), false);
    } finally {
      await rig.close();
    }
  });
}

test('V8 engine: the just-in-time request carries the script line and column of the call', async () => {
  const rig = setup([], true, 'v8');
  try {
    const code = 'const name = ["send", "email"].join("_");\n\nconst r = await  tools[name]({ to: "x" });\nreturn r;';
    const { text } = await rig.run(code, 'javascript');
    assert.match(text, /sent 1/);
    assert.equal(rig.calls.length, 1);
    // V8 places a call at its argument list's parenthesis.
    assert.deepEqual(rig.calls[0]!.callSite, { line: 3, column: 29 });
  } finally {
    await rig.close();
  }
});

test('a revoked grant applies to the next call of a running script: that call waits pending for its own decision', async () => {
  const rig = setup([{ approved: true, scope: 'conversation' }], false);
  try {
    rig.host.registerTool({
      name: 'revoke_now',
      description: 'revokes the conversation grant',
      inputSchema: { type: 'object' },
      handler: async (_args, ctx) => textResult(String(rig.host.approvals.revoke(ctx.conversationId))),
    });
    const code = 'await tools.send_email({});\nawait tools.revoke_now({});\ntry { await tools.send_email({}); } catch (e) { return e.message; }\nreturn "ran";';
    const { text } = await rig.run(code, 'javascript');
    assert.match(text, /was not approved/);
    assert.equal(rig.sent.count, 1);
    assert.equal(rig.calls.length, 1);
    assert.equal(rig.calls[0]!.callSite?.line, 3);
    assert.deepEqual(rig.emailEvents().map((e) => e.phase), ['started', 'completed', 'pending', 'aborted']);
  } finally {
    await rig.close();
  }
});

test('an interrupt while the up-front request waits grants nothing and runs nothing', async () => {
  let release!: () => void;
  const asked = new Promise<void>((resolve) => (release = resolve));
  const host = new ToolHost({
    logger: pino({ level: 'silent' }),
    approvalGate: {
      required: (call) => call.tool === 'send_email',
      decide: async () => true,
      // Answers yes, but only once the call has been aborted.
      decideBatch: (_request, signal) => {
        release();
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ approved: true, scope: 'conversation' })));
      },
    },
  });
  let sent = 0;
  host.registerTool({ name: 'send_email', description: 'Sends', inputSchema: { type: 'object' }, handler: async () => textResult(String(++sent)) });
  const ce = registerCodeExecution(host, { languages: ['javascript'] });
  try {
    const stream = host.openStream('conv');
    const inferenceId = stream.beginInference();
    const outcome = host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'await tools.send_email({});' } });
    await asked;
    assert.equal(host.interrupt('conv'), 1);
    assert.equal((await outcome).status, 'aborted');
    // The handler has returned once the conversation is free again.
    const inference2 = host.beginInference({ conversationId: 'conv' });
    await host.dispatch({ inferenceId: inference2, name: 'code_execution', input: { code: 'return 1;' } });
    assert.equal(sent, 0);
    assert.deepEqual(host.approvals.list('conv'), [], 'the interrupt granted nothing');
  } finally {
    await ce.close();
    await host.close();
  }
});
