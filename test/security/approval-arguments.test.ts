/**
 * A person asked to approve a direct model call used to see only the tool's name: "Allow
 * x--send, called by model call toolu_1?" with nothing of what it would send. The form now
 * shows the call's arguments exactly as the tool receives them (issue 42.1: the observers'
 * redaction once hid a `curl | sh` behind a secret-looking name, and a 2 KiB cut hid a
 * recipient); arguments too long to show are refused, never shown in part.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { ElicitationGate, type ElicitationForm } from '../../src/approvals/elicitation-gate.ts';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';

test("a direct model call's approval form shows its exact arguments; too long to show is refused", async () => {
  const forms: ElicitationForm[] = [];
  const gate = new ElicitationGate({ tools: ['send'] }, () => ({
    canElicit: () => true,
    elicit: async (form) => { forms.push(form); return { action: 'accept', content: {} }; },
  }));
  let sent = 0;
  const host = new ToolHost({ logger: pino({ level: 'silent' }), approvalGate: gate });
  host.registerTool({ name: 'send', description: 'Sends', inputSchema: { type: 'object' }, handler: async () => textResult(`sent ${++sent}`) });
  const dispatch = (input: Record<string, unknown>) => host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), modelCallId: 'toolu_1', name: 'send', input });
  try {
    const input = { to: 'boss@example.com', body: 'quarterly numbers', api_key: 'sk-live-123' };
    const outcome = await dispatch(input);
    assert.equal(outcome.status, 'completed');
    const form = forms[0]!;
    assert.match(form.message, /^Allow send, called by model call toolu_1\?/);
    assert.ok(form.message.includes(JSON.stringify(input)), form.message);
    const shown = (form._meta['toolcell/approval'] as { arguments?: Record<string, unknown> }).arguments;
    assert.deepEqual(shown, input);

    const long = await dispatch({ ...input, filler: 'x'.repeat(100_000) });
    assert.equal(long.status, 'aborted');
    assert.equal(sent, 1);
    assert.equal(forms.length, 1, 'a form too long to show was not put to the person');
    assert.match((long.result.content[0] as unknown as { text: string }).text, /too long to show for approval/);
  } finally {
    await host.close();
  }
});
