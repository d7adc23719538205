/**
 * Durable-run benchmark (`npm run bench:durable`): what keeping a run durable costs. The same
 * run each time — a JavaScript script making sequential inner calls to a no-op built-in, then
 * the pause's one write (the journal read and the run stored, as serve does when the run waits
 * for approval) — with no store (nothing recorded, nothing written), with SQLite and with
 * PostgreSQL (`TOOLCELL_BENCH_PG`, a database URL; else a throwaway cluster when PostgreSQL is
 * installed, else skipped and said so). Rounds
 * alternate between the configurations so a loaded machine's changes fall on all alike.
 * Target (issue 43 item 5): with SQLite, ≥ 0.5× the calls per second without a store.
 *
 * The last line is one JSON object.
 */
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { registerCodeExecution } from '../src/code-execution/index.ts';
import { DurableRuns } from '../src/code-execution/durable-runs.ts';
import { sealRecord } from '../src/store/journal.ts';
import { SqliteStore } from '../src/store/sqlite.ts';
import { PostgresStore } from '../src/store/postgres.ts';
import type { DurableStore } from '../src/store/types.ts';
import { textResult } from '../src/host/results.ts';
import { median, noopHost } from './rig.ts';
import { startPgCluster, type PgCluster } from '../test/store/pg-cluster.ts';

const CALLS = 2_000;
const ROUNDS = 5;
const script = `for (let i = 0; i < ${CALLS}; i++) await tools.noop({ i }); return await tools.pause({});`;

interface Setup {
  name: string;
  run: () => Promise<number>;
  close: () => Promise<void>;
}

/**
 * One configuration: a host, code_execution (durable when `store` is given) and a built-in
 * `pause` the script calls last, which does what serve does when a run waits for approval:
 * reads the run's journal and stores it (then deletes it, to keep the store's size steady).
 */
function setup(name: string, store: DurableStore | undefined): Setup {
  const host = noopHost();
  const durable = store ? new DurableRuns() : undefined;
  let n = 0;
  host.registerTool({
    name: 'pause',
    description: 'Stores the run as a pause would',
    inputSchema: { type: 'object' },
    classes: ['shell'],
    handler: async (_args, ctx) => {
      const recorder = ctx.parentToolCallId !== undefined ? durable?.recorder(ctx.parentToolCallId) : undefined;
      if (!store || !recorder) return textResult('nothing stored');
      const snapshot = await recorder.snapshot(0);
      if ('refused' in snapshot) throw new Error(snapshot.refused);
      const id = `bench-${name}-${++n}-${Date.now()}`;
      const record = sealRecord(id, { version: 1, toolCallId: recorder.toolCallId, language: recorder.language, codeDigest: recorder.codeDigest, journal: snapshot.journal, approvals: [] });
      await store.putRun({ id, binding: 'b', data: JSON.stringify(record), expiresAt: Date.now() + 60_000 });
      await store.deleteRun(id);
      return textResult(`stored ${snapshot.journal.length} entries`);
    },
  });
  const codeExecution = registerCodeExecution(host, { languages: ['javascript'], maxCallsPerExecution: Infinity, ...(durable ? { durable } : {}) });
  const stream = host.openStream(`bench-${name}`);
  const inferenceId = stream.beginInference();
  return {
    name,
    run: async () => {
      const t = performance.now();
      const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: script, time_limit_ms: 120_000 } });
      const value = (outcome.result.structuredContent as { ok?: boolean; value?: unknown })?.value;
      if (typeof value !== 'string' || !value.startsWith(store ? 'stored' : 'nothing')) throw new Error(JSON.stringify(outcome.result).slice(0, 300));
      return CALLS / ((performance.now() - t) / 1000);
    },
    close: async () => {
      await codeExecution.close();
      await host.close();
      await store?.close();
    },
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-bench-durable-'));
  const setups = [setup('none', undefined), setup('sqlite', new SqliteStore(join(dir, 'bench.db')))];
  // A database URL given, or a throwaway cluster when PostgreSQL is installed (test/store/pg-cluster.ts).
  let cluster: PgCluster | undefined;
  let pgUrl = process.env.TOOLCELL_BENCH_PG;
  if (!pgUrl) {
    try {
      cluster = await startPgCluster();
      pgUrl = cluster.url;
    } catch (error) {
      console.log(`PostgreSQL: skipped (${(error as Error).message.split('\n')[0]})`);
    }
  }
  if (pgUrl) setups.push(setup('postgres', new PostgresStore(pgUrl)));
  try {
    for (const s of setups) await s.run(); // warm-up
    const figures = new Map<string, number[]>(setups.map((s) => [s.name, []]));
    for (let r = 0; r < ROUNDS; r++) for (const s of setups) figures.get(s.name)!.push(await s.run());
    const result: Record<string, unknown> = { calls: CALLS, rounds: ROUNDS, load: loadavg()[0]!.toFixed(2) };
    const none = median(figures.get('none')!);
    for (const [name, xs] of figures) {
      const m = Math.round(median(xs));
      result[`${name}CallsPerSec`] = m;
      console.log(`${name.padEnd(9)} ${m.toLocaleString()} sequential inner calls/s (median of ${ROUNDS}), ratio to no store ${(m / none).toFixed(2)}`);
      if (name !== 'none') result[`${name}Ratio`] = Number((m / none).toFixed(2));
    }
    console.log(JSON.stringify(result));
  } finally {
    for (const s of setups) await s.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
