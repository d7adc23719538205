/**
 * Conversation-wide approval grants on a real PostgreSQL server (test/store/pg-cluster.ts), as
 * two instances behind a load balancer share them: two hosts, each with its own pool on one
 * database; a grant at instance 1 is not asked again at instance 2, another conversation is
 * asked, and a revoke at instance 2 makes instance 1 ask again (test/approvals/shared-grants-rig.ts).
 */
import { test } from 'node:test';
import { PostgresStore } from '../../src/store/postgres.ts';
import { startPgCluster } from './pg-cluster.ts';
import { sharedGrantsScenario } from '../approvals/shared-grants-rig.ts';

test('postgres store: a grant at instance 1 holds at instance 2, another conversation is asked, a revoke at instance 2 reaches instance 1', async () => {
  const cluster = await startPgCluster();
  const one = new PostgresStore(cluster.url);
  const two = new PostgresStore(cluster.url);
  try {
    await sharedGrantsScenario(one, two);
  } finally {
    await one.close();
    await two.close();
    await cluster.stop();
  }
});
