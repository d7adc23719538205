/**
 * Two hosts (ToolHost + code_execution) on one store, as two instances behind a load balancer:
 * the scenario of issue 43 item 4 for conversation-wide approval grants, run on each kind of
 * store by its test (shared-grants.test.ts: memory, SQLite; test/store/grants-postgres.test.ts).
 */
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult, resultText } from '../../src/host/results.ts';
import type { BatchApprovalDecision, BatchApprovalRequest } from '../../src/host/types.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { DurableRuns } from '../../src/code-execution/durable-runs.ts';
import type { DurableStore } from '../../src/store/types.ts';

/** One instance: its host, what its gate was asked, and a run of a script in a conversation. */
export function instance(store: DurableStore, logger = pino({ level: 'silent' })) {
  const batches: BatchApprovalRequest[] = [];
  const answers: BatchApprovalDecision[] = [];
  const sent: string[] = [];
  const host = new ToolHost({
    logger,
    approvalGate: {
      required: (call) => call.tool === 'send_email',
      // A just-in-time question is never expected here: declined, so that it shows.
      decide: async () => false,
      decideBatch: async (request) => {
        batches.push(request);
        return answers.shift() ?? false;
      },
    },
  });
  host.registerTool({ name: 'send_email', description: 'Sends an email', inputSchema: { type: 'object' }, handler: async (_args, ctx) => {
    sent.push(ctx.conversationId);
    return textResult('sent');
  } });
  const ce = registerCodeExecution(host, { languages: ['javascript'], durable: new DurableRuns(store) });
  const run = async (conversationId: string) => {
    const inferenceId = host.beginInference({ conversationId });
    const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'await tools.send_email({ to: "ada" });\nreturn "done";' } });
    return resultText(outcome.result);
  };
  return { host, batches, answers, sent, run, close: async () => { await ce.close(); await host.close(); } };
}

/**
 * Instance 1 grants "for this conversation"; instance 2's next run in it is not asked; another
 * conversation is asked at instance 2; a revoke at instance 2 makes instance 1 ask again.
 */
export async function sharedGrantsScenario(one: DurableStore, two: DurableStore): Promise<void> {
  const a = instance(one);
  const b = instance(two);
  try {
    a.answers.push({ approved: true, scope: 'conversation' });
    assert.match(await a.run('conv'), /done/);
    assert.equal(a.batches.length, 1, 'instance 1 asked once');
    assert.deepEqual((await one.loadGrants('conv')).map((g) => g.tool), ['send_email'], 'the grant is in the store');

    // Instance 2, same conversation: not asked, the script runs.
    assert.match(await b.run('conv'), /done/);
    assert.equal(b.batches.length, 0, 'instance 2 was not asked again');
    assert.deepEqual(b.host.approvals.list('conv').map((g) => g.tool), ['send_email']);

    // Another conversation at instance 2: asked (and declined by default: nothing runs).
    assert.match(await b.run('other'), /^approval declined; nothing ran/);
    assert.equal(b.batches.length, 1, 'another conversation is asked');
    assert.equal(b.batches[0]!.conversationId, 'other');

    // A revoke at instance 2 reaches instance 1's next run: asked again (declined: nothing runs).
    assert.equal(await b.host.approvals.revokeEverywhere('conv', 'send_email'), 1);
    assert.deepEqual(a.host.approvals.list('conv').map((g) => g.tool), ['send_email'], 'instance 1 still holds it until its next run');
    assert.match(await a.run('conv'), /^approval declined; nothing ran/);
    assert.equal(a.batches.length, 2, 'instance 1 asked again after the revoke at instance 2');
    assert.deepEqual(a.host.approvals.list('conv'), []);
    assert.deepEqual([...a.sent, ...b.sent], ['conv', 'conv'], 'send_email ran once at each instance, in conv only');
  } finally {
    await a.close();
    await b.close();
  }
}
