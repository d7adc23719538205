/**
 * The short seeded fault run, part of `npm test` (the long one is `npm run faults`). The seed
 * is printed; `FAULT_SEED=<seed> npm test` (or `node --import tsx --test test/faults/short.test.ts`)
 * replays the same choices.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runFaults } from './run.ts';
import { seedFromEnv } from './rng.ts';

test('a short seeded fault run keeps every promise of the dispatch path', { timeout: 180_000 }, async (t) => {
  const seed = seedFromEnv();
  t.diagnostic(`fault seed ${seed} (replay with FAULT_SEED=${seed})`);
  console.log(`fault seed ${seed} (replay with FAULT_SEED=${seed})`);
  const report = await runFaults({ seed, calls: 600, worlds: 2, closeMidFlight: 0.3 });
  const { violations, ...figures } = report;
  t.diagnostic(JSON.stringify(figures));
  assert.ok(report.opened > 100, `the run opened calls (${report.opened})`);
  assert.ok(report.scriptCalls > 0 && report.workload.executions.python > 0 && report.workload.executions.javascript > 0, 'scripts of both languages ran');
  assert.deepEqual(violations, [], `seed ${seed}: ${violations.length} violations`);
});
