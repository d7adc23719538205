/**
 * Observer delivery cost (`npm run bench:observers`, issue 13): dispatch of a no-op built-in
 * with 0, 1, 4 and 16 observer processes, each granted observe + inputs and asking for every
 * call's input, with every event delivered (`maxObservedCallsPerSecond: Infinity`) and queues
 * large enough never to drop. For each count: calls/s, host CPU per call, events delivered
 * (counted by the observers themselves) and dropped, and the host CPU each delivered event
 * costs — (CPU with N observers − CPU with none) / events delivered — against the target of
 * 5 µs per delivered event per observer; also all of the host's CPU / events delivered, the
 * dispatch itself included. Observers run in their own processes: the host's CPU is this
 * process's (process.cpuUsage); the observers' is reported beside it (issue 46 item 4), as the
 * process tree's CPU (/proc, tree-cpu.ts) less the host's, per dispatched call.
 *
 * Then the same with one observer and the default queue bounds (only the rate budget lifted):
 * how many calls its queue dropped, in % of those dispatched, and how large it grew — the
 * queue is bounded in bytes (4 MiB), and a lifted budget should deliver every call to an
 * observer that reads. The last line is JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolHost } from '../src/host/tool-host.ts';
import type { McplConnection } from '../src/mcpl/connection.ts';
import { attachObservers, median, noopHost } from './rig.ts';
import { treeCpuMs } from './tree-cpu.ts';

const COUNTS = (process.env.OBSERVER_BENCH_COUNTS ?? '0,1,4,16').split(',').map(Number);
const CALLS = Number(process.env.OBSERVER_BENCH_CALLS ?? 20_000);
const ROUNDS = 3;
const TARGET_US = 5;

interface Round {
  callsPerSec: number;
  cpuUs: number;
  /** CPU the observer processes spent on the round (the process tree's, less the host's). */
  observersCpuUs: number;
}

/**
 * One measured round: CALLS dispatches, yielding every 100 as a framework does between
 * responses, then a flush; the observers' CPU is read once each has answered a barrier (it has
 * read everything written before).
 */
async function round(host: ToolHost, inferenceId: string, connections: McplConnection[] = []): Promise<Round> {
  const tree = treeCpuMs();
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < CALLS; i += 100) {
    for (let k = 0; k < 100; k++) await host.dispatch({ inferenceId, name: 'noop', input: { i: i + k } });
    await new Promise((r) => setImmediate(r));
  }
  const elapsed = performance.now() - start;
  // The writes belong to the calls: wait until every queue has handed its lines to the pipe.
  await host.flush();
  const used = process.cpuUsage(cpu);
  await Promise.all(connections.map((c) => c.request('fixture/barrier')));
  const treeUs = (treeCpuMs() - tree) * 1000;
  const hostSoFar = process.cpuUsage(cpu);
  return { callsPerSec: CALLS / (elapsed / 1000), cpuUs: used.user + used.system, observersCpuUs: Math.max(0, treeUs - hostSoFar.user - hostSoFar.system) };
}

async function received(connections: McplConnection[]): Promise<number> {
  let total = 0;
  for (const c of connections) {
    await c.request('fixture/barrier');
    total += ((await c.request('fixture/control', { op: 'count' })) as { lifecycle: number }).lifecycle;
  }
  return total;
}

const dir = mkdtempSync(join(tmpdir(), 'toolcell-bench-observers-'));
const rows: { observers: number; callsPerSec: number; cpuUsPerCall: number; observersCpuUsPerCall: number; delivered: number; dropped: number; expected: number; cpuUsPerEvent: number | null; cpuUsPerEventAll: number | null }[] = [];
try {
  let baselineCpuUs = 0;
  for (const count of COUNTS) {
    const host = noopHost();
    const connections = await attachObservers(host, dir, count, {
      maxObservedCallsPerSecond: Infinity,
      maxQueuedNotifications: 10_000_000,
      maxQueuedBytes: 1024 * 1024 * 1024,
    });
    const inferenceId = host.beginInference({ conversationId: 'bench' });
    // Warm-up: JIT on both sides and the first queue drains; not measured.
    for (let i = 0; i < 3000; i++) await host.dispatch({ inferenceId, name: 'noop', input: { i } });
    await host.flush();
    const before = await received(connections);
    const droppedBefore = connections.reduce((n, c) => n + c.queue.stats.droppedCalls, 0);
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(host, inferenceId, connections));
    const delivered = (await received(connections)) - before;
    const dropped = connections.reduce((n, c) => n + c.queue.stats.droppedCalls, 0) - droppedBefore;
    await host.close();
    const cpuUs = median(rounds.map((r) => r.cpuUs));
    if (count === 0) baselineCpuUs = cpuUs;
    const perRoundDelivered = delivered / ROUNDS;
    rows.push({
      observers: count,
      callsPerSec: Math.round(median(rounds.map((r) => r.callsPerSec))),
      cpuUsPerCall: Number((cpuUs / CALLS).toFixed(2)),
      observersCpuUsPerCall: Number((median(rounds.map((r) => r.observersCpuUs)) / CALLS).toFixed(2)),
      delivered,
      dropped,
      expected: CALLS * ROUNDS * 2 * count,
      cpuUsPerEvent: count === 0 ? null : Number(((cpuUs - baselineCpuUs) / perRoundDelivered).toFixed(2)),
      cpuUsPerEventAll: count === 0 ? null : Number((cpuUs / perRoundDelivered).toFixed(2)),
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** One observer, default queue bounds, the rate budget lifted: what its queue dropped. */
async function defaultBounds(): Promise<{ calls: number; dropped: number; droppedPct: number; highWaterMessages: number; highWaterMb: number; delivered: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'toolcell-bench-observers-'));
  const host = noopHost();
  try {
    const connections = await attachObservers(host, dir, 1, { maxObservedCallsPerSecond: Infinity });
    const inferenceId = host.beginInference({ conversationId: 'bench' });
    const before = await received(connections);
    for (let r = 0; r < ROUNDS; r++) await round(host, inferenceId);
    const delivered = (await received(connections)) - before;
    const stats = connections[0]!.queue.stats;
    const calls = CALLS * ROUNDS;
    return {
      calls,
      dropped: stats.droppedCalls,
      droppedPct: Number(((100 * stats.droppedCalls) / calls).toFixed(2)),
      highWaterMessages: stats.highWater,
      highWaterMb: Number((stats.highWaterBytes / 2 ** 20).toFixed(2)),
      delivered,
    };
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
const bounded = await defaultBounds();

console.log(`${CALLS.toLocaleString()} dispatches of a no-op built-in per round, median of ${ROUNDS} rounds; every call's started (with input) and completed delivered to each observer`);
console.log('observers   calls/s   host CPU µs/call   observers\' CPU µs/call (all of them)   events delivered / expected   dropped calls   host CPU µs per delivered event: for delivery (all)');
for (const r of rows) {
  const perEvent = r.cpuUsPerEvent === null ? '(baseline)' : `${r.cpuUsPerEvent.toFixed(2)} (${r.cpuUsPerEventAll!.toFixed(2)}), target ≤ ${TARGET_US}`;
  console.log(
    `${String(r.observers).padStart(9)} ${r.callsPerSec.toLocaleString().padStart(9)} ${r.cpuUsPerCall.toFixed(1).padStart(18)} ${r.observersCpuUsPerCall.toFixed(1).padStart(38)} ${`${r.delivered.toLocaleString()} / ${r.expected.toLocaleString()}`.padStart(29)} ${String(r.dropped).padStart(15)}   ${perEvent}`,
  );
}
console.log(
  `1 observer, default queue bounds, budget lifted: ${bounded.dropped} of ${bounded.calls.toLocaleString()} calls dropped (${bounded.droppedPct}%), ` +
    `${bounded.delivered.toLocaleString()} events delivered, queue high water ${bounded.highWaterMessages.toLocaleString()} messages / ${bounded.highWaterMb} MB (target: 0 dropped)`,
);
const worst = Math.max(...rows.filter((r) => r.cpuUsPerEvent !== null).map((r) => r.cpuUsPerEvent!));
console.log(JSON.stringify({ calls: CALLS, rounds: ROUNDS, rows, worstCpuUsPerEvent: worst, targetUs: TARGET_US, met: worst <= TARGET_US, defaultBounds: bounded }));
