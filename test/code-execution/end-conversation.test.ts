/**
 * Ending a conversation (issue 13: conversations opened and closed leave memory flat):
 * `host.endConversation(id)` frees everything kept for it — the host's inferences and standing
 * approvals, code_execution's QuickJS VM slot (V8: its process) and Python interpreter — and
 * nothing of another conversation. (A VM whose run is still in progress is freed when that run
 * is released: test/runtime/js/pool-churn.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution, type CodeExecutionOptions } from '../../src/code-execution/index.ts';
import { waitUntil } from '../helpers/peers.ts';

function rig(options: CodeExecutionOptions = {}) {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const held: Array<() => void> = [];
  host.registerTool({ name: 'ping', description: 'pong', inputSchema: { type: 'object' }, classes: ['memory'], handler: async () => textResult('pong') });
  host.registerTool({
    name: 'hold',
    description: 'Answers when the test lets it',
    inputSchema: { type: 'object' },
    classes: ['memory'],
    handler: () => new Promise((resolve) => held.push(() => resolve(textResult('let go')))),
  });
  const ce = registerCodeExecution(host, options);
  const start = (conversation: string, language: 'javascript' | 'python', code: string) => {
    const stream = host.openStream(conversation);
    const inferenceId = stream.beginInference();
    return { inferenceId, outcome: host.dispatch({ inferenceId, name: 'code_execution', input: { code, language } }) };
  };
  const run = async (conversation: string, language: 'javascript' | 'python', code: string) => {
    const outcome = await start(conversation, language, code).outcome;
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.result));
    return outcome.result.structuredContent as { value: unknown; session: { fresh: boolean } };
  };
  return { host, ce, held, start, run, close: async () => (await ce.close(), await host.close()) };
}

const SET = { javascript: 'counter = 41; await tools.ping({}); return counter;', python: 'counter = 41\nawait tools.ping({})\ncounter' };
const READ = {
  javascript: 'return typeof counter === "undefined" ? "gone" : counter + 1;',
  python: '"gone" if "counter" not in globals() else counter + 1',
};

test('endConversation frees the conversation’s VM, interpreter, inferences and grants, and nothing of another', async () => {
  const r = rig();
  try {
    for (const id of ['a', 'b']) {
      await r.run(id, 'javascript', SET.javascript);
      await r.run(id, 'python', SET.python);
    }
    r.host.approvals.grantConversation('a', ['ping'], 'tc_test');
    r.host.approvals.grantConversation('b', ['ping'], 'tc_test');
    const js = await r.ce.runners.javascript();
    assert.equal(js.stats().conversations, 2);
    assert.equal(r.ce.runners.pythonConversations, 2);
    const oldInference = r.host.beginInference({ conversationId: 'a' });
    assert.deepEqual(r.host.remembered, { inferences: 5, conversations: 2 });

    assert.equal(await r.host.endConversation('a'), 0, 'nothing was open');

    // A's last run may still await its process's idle confirmation: its slot goes right after.
    await waitUntil(() => js.stats().conversations === 1 || undefined, 'a’s VM slot gone, b’s kept');
    assert.equal(r.ce.runners.pythonConversations, 1, 'a’s interpreter is gone, b’s kept');
    assert.deepEqual(r.host.remembered, { inferences: 2, conversations: 1 }, 'a’s inferences are forgotten');
    assert.deepEqual(r.host.approvals.list('a'), []);
    assert.equal(r.host.approvals.list('b').length, 1);
    const stale = await r.host.dispatch({ inferenceId: oldInference, name: 'ping', input: {} });
    assert.equal(stale.status, 'refused', 'an ended conversation’s inference opens nothing');
    // The id may be used again: a new conversation, with nothing of the old one.
    for (const language of ['javascript', 'python'] as const) {
      const again = await r.run('a', language, READ[language]);
      assert.equal(again.value, 'gone');
      assert.deepEqual(again.session, { fresh: true });
      assert.equal((await r.run('b', language, READ[language])).value, 42, 'b’s session is untouched');
    }
  } finally {
    await r.close();
  }
});

test('a conversation ended during a run: its call is aborted, its run cancelled and its VM freed', async () => {
  const r = rig();
  try {
    const js = await r.ce.runners.javascript();
    const { outcome } = r.start('busy', 'javascript', 'counter = 1; await tools.hold({}); return 2;');
    await waitUntil(() => r.held.length === 1 || undefined, 'the script to wait on its tool');
    assert.equal(js.stats().conversations, 1);
    const ending = r.host.endConversation('busy');
    assert.equal((await outcome).status, 'aborted', 'its open model call ended aborted');
    assert.equal(await ending, 1);
    r.held[0]!();
    await waitUntil(() => js.stats().conversations === 0 || undefined, 'the VM slot freed after the run');
    assert.deepEqual(r.host.remembered, { inferences: 0, conversations: 0 });
  } finally {
    await r.close();
  }
});

test('Python: a conversation ended during a run has its call aborted and its interpreter ended', async () => {
  const r = rig({ languages: ['python'] });
  try {
    const { outcome } = r.start('py-busy', 'python', 'counter = 1\nawait tools.hold({})\n2');
    await waitUntil(() => r.held.length === 1 || undefined, 'the script to wait on its tool');
    assert.equal(r.ce.runners.pythonConversations, 1);
    assert.equal(await r.host.endConversation('py-busy'), 1);
    assert.equal((await outcome).status, 'aborted');
    assert.equal(r.ce.runners.pythonConversations, 0);
    r.held[0]!();
    // The id names a new conversation now: a fresh interpreter, nothing of the old globals.
    const again = await r.run('py-busy', 'python', READ.python);
    assert.equal(again.value, 'gone');
  } finally {
    await r.close();
  }
});

test('V8 engine: endConversation closes the conversation’s process', async () => {
  const r = rig({ engine: 'v8', languages: ['javascript'] });
  try {
    await r.run('v8-a', 'javascript', SET.javascript);
    await r.run('v8-b', 'javascript', SET.javascript);
    const js = await r.ce.runners.javascript();
    assert.equal(js.stats().conversations, 2);
    await r.host.endConversation('v8-a');
    await waitUntil(() => js.stats().conversations === 1 || undefined, 'v8-a’s process closed, v8-b’s kept');
  } finally {
    await r.close();
  }
});

test('a failing hook is reported, the others still run, and the call resolves', async () => {
  const r = rig({ languages: ['javascript'] });
  const diagnostics: string[] = [];
  r.host.on('diagnostic', (d) => diagnostics.push(d.code));
  r.host.onConversationEnd(() => {
    throw new Error('boom');
  });
  try {
    await r.run('h', 'javascript', SET.javascript);
    await r.host.endConversation('h');
    assert.deepEqual(diagnostics, ['conversation-end-failed']);
    const js = await r.ce.runners.javascript();
    await waitUntil(() => js.stats().conversations === 0 || undefined, 'the VM slot freed by the code_execution hook');
    await assert.rejects(r.host.endConversation(''), TypeError);
  } finally {
    await r.close();
  }
});
