/**
 * Approvals end with their parent. A just-in-time approval answered after its script's
 * `code_execution` had ended used to run the tool anyway (`pending → started → completed` after
 * the parent's terminal), and one never answered kept its call open until `host.close()`, its
 * gate signal never aborted. Now the parent's terminal aborts every pending approval of its
 * script calls: the gate's signal fires, the call ends `aborted` with one terminal, and a late
 * "yes" runs nothing. QuickJS, V8 and Python.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import type { ApprovalGate } from '../../src/host/types.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';

// The script asks for the gated call, does not wait for it, and returns: its requests reach the
// host in order, so send_email is pending before lookup answers and the script ends.
const JS = 'tools.send_email({ to: "x" }).catch(() => {}); await tools.lookup({}); return "done";';
const SCRIPTS = {
  quickjs: JS,
  v8: JS,
  python: 'import asyncio\nt = asyncio.ensure_future(tools.send_email(to="x"))\nawait asyncio.sleep(0)\nawait tools.lookup({})\n"done"',
} as const;

for (const engine of ['quickjs', 'v8', 'python'] as const) {
  test(`${engine}: a pending approval is aborted when its code_execution returns, and a late yes runs nothing`, async () => {
    let answer!: (approved: boolean) => void;
    let gateSignal!: AbortSignal;
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => { asked = resolve; });
    const gate: ApprovalGate = {
      required: (call) => call.tool === 'send_email',
      decide: (_call, signal) => {
        gateSignal = signal;
        asked();
        return new Promise<boolean>((resolve) => { answer = resolve; });
      },
    };
    const host = new ToolHost({ logger: pino({ level: 'silent' }), approvalGate: gate });
    const events: HostLifecycleEvent[] = [];
    host.on('lifecycle', (e) => events.push(e));
    let sent = 0;
    host.registerTool({
      name: 'send_email',
      description: 'Sends an email',
      inputSchema: { type: 'object' },
      classes: ['comms'],
      handler: async () => textResult(`sent ${++sent}`),
    });
    host.registerTool({ name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' }, handler: async () => textResult('found') });
    const language = engine === 'python' ? 'python' : 'javascript';
    const ce = registerCodeExecution(host, { languages: [language], ...(engine === 'python' ? {} : { engine }) });
    try {
      const inferenceId = host.beginInference({ conversationId: `c-${engine}` });
      const outcome = host.dispatch({
        inferenceId, modelCallId: 'toolu_1', name: 'code_execution',
        input: { code: SCRIPTS[engine], language },
      });
      await wasAsked;
      const parent = await outcome;
      assert.equal(parent.status, 'completed');
      assert.equal((parent.result.structuredContent as any).value, 'done', JSON.stringify(parent.result.structuredContent));
      // The parent's terminal is in: the pending approval is over too.
      assert.equal(gateSignal.aborted, true, "the gate's signal fired");
      const email = () => events.filter((e) => e.tool === 'send_email').map((e) => e.phase);
      assert.deepEqual(email(), ['pending', 'aborted']);
      answer(true);
      await host.flush();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(sent, 0, 'the late yes ran nothing');
      assert.deepEqual(email(), ['pending', 'aborted'], 'exactly one terminal');
    } finally {
      await ce.close();
      await host.close();
    }
  });
}

test("a model call's approval left unanswered past approvalTimeoutMs is declined, and the gate's signal aborts", async () => {
  let gateSignal!: AbortSignal;
  const gate: ApprovalGate = {
    required: () => true,
    decide: (_call, signal) => {
      gateSignal = signal;
      return new Promise<boolean>(() => {}); // nobody ever answers
    },
  };
  const host = new ToolHost({ logger: pino({ level: 'silent' }), approvalGate: gate, approvalTimeoutMs: 100 });
  let ran = 0;
  host.registerTool({ name: 'send_email', description: 'Sends', inputSchema: { type: 'object' }, handler: async () => textResult(`sent ${++ran}`) });
  try {
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'send_email', input: {} });
    assert.equal(outcome.status, 'aborted');
    assert.equal(outcome.refusal?.code, 'approval_refused');
    assert.match(outcome.refusal!.message, /not approved: no answer within 100 ms/);
    assert.equal(gateSignal.aborted, true);
    assert.equal(ran, 0);
  } finally {
    await host.close();
  }
});
