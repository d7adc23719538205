/**
 * What the host keeps per conversation, and `endConversation` (issue 13): an ended
 * conversation's model calls are aborted, its inferences and grants forgotten, its hooks run;
 * a host whose conversations are never ended stays bounded (the per-conversation index of
 * inferences shrinks with the oldest-first eviction).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';

function host() {
  const h = new ToolHost({ logger: pino({ level: 'silent' }) });
  h.registerTool({ name: 'wait', description: 'w', inputSchema: { type: 'object' }, classes: ['memory'], handler: (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(textResult('stopped')))) });
  return h;
}

test('endConversation aborts its open model calls only, forgets its inferences, revokes its grants, runs the hooks', async () => {
  const h = host();
  const hooked: string[] = [];
  const unhook = h.onConversationEnd(async (id) => {
    await new Promise((resolve) => setImmediate(resolve));
    hooked.push(id);
  });
  const ended: string[] = [];
  h.on('conversation-ended', (info) => ended.push(`${info.conversationId}:${info.aborted}`));
  const mine = h.beginInference({ conversationId: 'mine' });
  const other = h.beginInference({ conversationId: 'other' });
  const open = h.dispatch({ inferenceId: mine, name: 'wait', input: {} });
  const untouched = h.dispatch({ inferenceId: other, name: 'wait', input: {} });
  h.approvals.grantConversation('mine', ['wait'], 'tc_x');
  assert.equal(await h.endConversation('mine', 'closed by the user'), 1);
  assert.deepEqual(hooked, ['mine'], 'the hook settled before endConversation resolved');
  assert.deepEqual(ended, ['mine:1']);
  assert.equal((await open).status, 'aborted');
  assert.deepEqual(h.approvals.list('mine'), []);
  assert.deepEqual(h.remembered, { inferences: 1, conversations: 1 });
  assert.equal((await h.dispatch({ inferenceId: mine, name: 'wait', input: {} })).refusal?.code, 'unknown_inference');
  assert.equal(h.openCallIds().length, 1, 'the other conversation’s call is still open');
  unhook();
  await h.endConversation('other');
  assert.deepEqual(hooked, ['mine'], 'a removed hook is not run');
  assert.equal((await untouched).status, 'aborted');
  assert.deepEqual(h.remembered, { inferences: 0, conversations: 0 });
  await h.close();
});

test('never-ended conversations stay bounded: evicting the oldest inference also shrinks the per-conversation index', () => {
  const h = host();
  for (let i = 0; i < 100_010; i++) h.beginInference({ conversationId: `c${i}` });
  assert.deepEqual(h.remembered, { inferences: 100_000, conversations: 100_000 });
  // An inference id reused under another conversation moves to it.
  h.beginInference({ conversationId: 'a', inferenceId: 'same' });
  h.beginInference({ conversationId: 'b', inferenceId: 'same' });
  assert.equal(h.remembered.inferences, 100_000);
  assert.equal(h.remembered.conversations, 100_000, 'a lost its only inference, b gained it, one old conversation was evicted');
});
