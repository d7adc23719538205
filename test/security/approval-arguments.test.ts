/**
 * A person asked to approve a direct model call used to see only the tool's name: "Allow
 * x--send, called by model call toolu_1?" with nothing of what it would send. The form now
 * shows the call's arguments, bounded and redacted as an observer's inputs are, so the answer
 * is informed and no secret reaches the client's screen.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { ElicitationGate, type ElicitationForm } from '../../src/approvals/elicitation-gate.ts';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';

test("a direct model call's approval form shows its arguments, bounded and redacted", async () => {
  const forms: ElicitationForm[] = [];
  const gate = new ElicitationGate({ tools: ['send'] }, () => ({
    canElicit: () => true,
    elicit: async (form) => { forms.push(form); return { action: 'accept', content: {} }; },
  }));
  const host = new ToolHost({ logger: pino({ level: 'silent' }), approvalGate: gate });
  host.registerTool({ name: 'send', description: 'Sends', inputSchema: { type: 'object' }, handler: async () => textResult('sent') });
  try {
    const outcome = await host.dispatch({
      inferenceId: host.beginInference({ conversationId: 'c' }),
      modelCallId: 'toolu_1',
      name: 'send',
      input: { to: 'boss@example.com', body: 'quarterly numbers', api_key: 'sk-live-123', filler: 'x'.repeat(100_000) },
    });
    assert.equal(outcome.status, 'completed');
    const form = forms[0]!;
    assert.match(form.message, /^Allow send, called by model call toolu_1\?/);
    assert.match(form.message, /boss@example\.com/);
    assert.match(form.message, /quarterly numbers/);
    assert.ok(!form.message.includes('sk-live-123'), 'the secret reached the form');
    assert.ok(form.message.length < 4_000, `a form of ${form.message.length} characters`);
    const shown = (form._meta['toolcell/approval'] as { arguments?: Record<string, unknown> }).arguments;
    assert.equal(shown?.to, 'boss@example.com');
    assert.equal(shown?.api_key, '[redacted]');
  } finally {
    await host.close();
  }
});
