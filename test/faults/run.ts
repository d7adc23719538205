/**
 * The seeded fault-injection run (issue 9). A run is a number of worlds (world.ts), each
 * driven by the workload (workload.ts) while chaos (chaos.ts) injects faults, then checked
 * (check.ts): after quiescing, or — in some worlds — after a `close()` in mid-flight.
 *
 * As a program (`npm run faults`): `FAULT_SEED` (default random), `FAULT_CALLS` (default
 * 10,000 dispatches), `FAULT_WORLDS`, `FAULT_CLOSE_MID` (chance of a close() in mid-flight,
 * default 0.2); prints the seed first and one JSON line last.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BUSY_MESSAGE } from '../../src/code-execution/conversation-lock.ts';
import { checkHost, checkObserver, hostView, type ObserverFigures } from './check.ts';
import { startChaos, type ChaosCounts } from './chaos.ts';
import { commandLine, descendants, extraHandles, handleCounts, stillAlive } from './processes.ts';
import { record } from './recorder.ts';
import { Rng, seedFromEnv } from './rng.ts';
import { runWorkload, type WorkloadCounts } from './workload.ts';
import { makeWorld, type WorldOptions } from './world.ts';

export interface FaultRunOptions {
  seed: number;
  /** Dispatches in all (model and script calls), spread over the worlds. */
  calls: number;
  worlds: number;
  conversations?: number;
  /** Chance that a world ends with `close()` while calls are in flight. */
  closeMidFlight?: number;
  /** Extra time a dispatch may take past its safety timeout on a loaded machine. */
  slackMs?: number;
  log?: (line: string) => void;
}

export interface FaultReport {
  seed: number;
  worlds: number;
  dispatches: number;
  modelCalls: number;
  scriptCalls: number;
  opened: number;
  refused: number;
  /** Refusals by code; `busy` counts executions refused because another one's call was open. */
  refusals: Record<string, number>;
  statuses: Record<string, number>;
  lateResults: number;
  workload: WorkloadCounts;
  chaos: ChaosCounts;
  closedMidFlight: number;
  observers: ObserverFigures[];
  maxOvershootMs: number;
  violations: string[];
  durationMs: number;
}

const TERMINAL = new Set(['completed', 'failed', 'aborted']);

async function until(probe: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!probe()) {
    if (performance.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

async function oneWorld(index: number, rng: Rng, calls: number, options: FaultRunOptions, report: FaultReport): Promise<void> {
  const log = options.log ?? (() => {});
  const slackMs = options.slackMs ?? 2_000;
  const worldOptions: WorldOptions = {
    whenBusy: rng.chance(0.5) ? 'wait' : 'refuse',
    callTimeoutMs: 2_500,
    innerCallTimeoutMs: 600,
    innerCallGraceMs: 300,
    maxTimeLimitMs: 3_000,
    reconnectDelayMs: rng.int(20, 1_500),
  };
  const baseline = handleCounts();
  const world = await makeWorld(worldOptions);
  const rec = record(world.host, worldOptions.callTimeoutMs);
  const providerOpen = new Set<string>();
  world.host.on('lifecycle', (e) => {
    if (!e.tool.startsWith('p--')) return;
    if (e.phase === 'started') providerOpen.add(e.toolCallId);
    else if (TERMINAL.has(e.phase)) providerOpen.delete(e.toolCallId);
  });
  const violations: string[] = [];
  const chaos = startChaos(world, rng.fork(), () => providerOpen.size);
  const workload = runWorkload(world.host, rec, rng.fork(), {
    calls,
    conversations: options.conversations ?? 3,
    dir: world.dir,
    maxTimeLimitMs: worldOptions.maxTimeLimitMs,
  });
  // Every run has at least one world checked exactly (quiesced before close).
  const lastChance = index >= options.worlds - 1 && report.closedMidFlight === index;
  const closeMid = rng.chance(options.closeMidFlight ?? 0.2) && !lastChance;
  const stalledDrops = () => world.host.server('stalled')?.queue.stats.droppedCalls ?? 0;
  let dropped = 0;
  let received: Map<string, any[]>;
  let pids: number[];
  const longest = Math.max(worldOptions.callTimeoutMs, worldOptions.innerCallTimeoutMs + worldOptions.innerCallGraceMs, 2_000) + slackMs;
  if (closeMid) {
    const at = Math.floor(calls * (0.2 + rng.next() * 0.6));
    await until(() => rec.dispatches.length >= at || rec.dispatches.length >= calls, 120_000);
    workload.stop();
    await chaos.stop();
    pids = descendants();
    dropped = stalledDrops();
    // Sometimes the provider dies just before close(): its restart back-off must not outlive it.
    const provider = world.pid('p');
    if (provider !== undefined && rng.chance(0.5)) {
      let timer: NodeJS.Timeout | undefined;
      const gone = new Promise<void>((resolve) => {
        world.host.on('server-closed', (info) => info.serverId === 'p' && resolve());
        timer = setTimeout(resolve, 2_000);
      });
      try {
        process.kill(provider, 'SIGKILL');
        await gone;
      } catch {
        // it had already died
      } finally {
        clearTimeout(timer);
      }
    }
    await world.close();
    report.closedMidFlight += 1;
    if (!(await until(() => rec.pending() === 0, longest))) violations.push(`${rec.pending()} dispatches still unsettled ${longest} ms after close()`);
    await workload.done;
    received = new Map(world.observers.map((o) => [o.id, o.peer.lifecycle()]));
  } else {
    await workload.done;
    await chaos.stop();
    if (!(await until(() => rec.pending() === 0, longest))) violations.push(`${rec.pending()} dispatches still unsettled`);
    if (!(await until(() => world.host.openCallIds().length === 0, longest))) violations.push(`calls still open: ${world.host.openCallIds().join(', ')}`);
    await world.host.flush();
    for (const o of world.observers) {
      if (world.host.server(o.id)?.isConnected) await world.host.server(o.id)!.request('fixture/barrier');
    }
    dropped = stalledDrops();
    received = new Map(world.observers.map((o) => [o.id, o.peer.lifecycle()]));
    pids = descendants();
    await world.close();
  }
  // tsx's own esbuild service (it compiles what the host imports lazily) is the loader's, not the host's.
  const alive = stillAlive(pids).filter((pid) => !commandLine(pid).includes('/esbuild'));
  if (alive.length > 0) violations.push(`processes alive after close(): ${alive.map((pid) => `${pid} (${commandLine(pid)})`).join(', ')}`);
  if (!(await until(() => extraHandles(baseline).length === 0, 300))) violations.push(`handles alive after close(): ${extraHandles(baseline).join(', ')}`);
  rec.detach();

  const view = hostView(rec);
  const figures = checkHost(rec, view, slackMs, violations);
  for (const o of world.observers) {
    const f = checkObserver(o, received.get(o.id)!, view, o.role === 'stalled' ? dropped : 0, !closeMid, violations);
    const sum = report.observers.find((x) => x.id === f.id);
    if (sum) {
      sum.expectedCalls += f.expectedCalls;
      sum.receivedCalls += f.receivedCalls;
      sum.droppedCounted += f.droppedCounted;
    } else report.observers.push(f);
  }

  world.removeFiles();
  report.worlds += 1;
  report.dispatches += rec.dispatches.length;
  for (const d of rec.dispatches) {
    if (d.request.parentToolCallId) report.scriptCalls += 1;
    else report.modelCalls += 1;
    const status = d.outcome?.status ?? 'unsettled';
    report.statuses[status] = (report.statuses[status] ?? 0) + 1;
    if (status === 'refused') report.refused += 1;
    const code = d.outcome?.refusal?.code ?? (d.outcome?.result.content[0]?.text === BUSY_MESSAGE ? 'busy' : undefined);
    if (code !== undefined) report.refusals[code] = (report.refusals[code] ?? 0) + 1;
  }
  report.opened += view.openings.length;
  report.lateResults += rec.lateResults;
  report.maxOvershootMs = Math.max(report.maxOvershootMs, figures.maxOvershootMs);
  for (const key of Object.keys(chaos.counts) as (keyof ChaosCounts)[]) report.chaos[key] += chaos.counts[key];
  for (const key of ['turns', 'sameTickEnds', 'delayedEnds', 'interrupts', 'bursts'] as const) report.workload[key] += workload.counts[key];
  report.workload.executions.javascript += workload.counts.executions.javascript;
  report.workload.executions.python += workload.counts.executions.python;
  report.violations.push(...violations.map((v) => `world ${index} (${worldOptions.whenBusy}${closeMid ? ', closed mid-flight' : ''}): ${v}`));
  log(
    `world ${index}: ${rec.dispatches.length} dispatches, ${view.openings.length} opened, whenBusy ${worldOptions.whenBusy}${closeMid ? ', closed mid-flight' : ''}, ` +
      `${chaos.counts.providerKills} provider kills, ${chaos.counts.stalls} stalls, stalled observer dropped ${dropped}, ${violations.length} violations`,
  );
}

/** Runs the worlds one after another; never throws for a violation, it reports them. */
export async function runFaults(options: FaultRunOptions): Promise<FaultReport> {
  const started = performance.now();
  const rng = new Rng(options.seed);
  const report: FaultReport = {
    seed: options.seed,
    worlds: 0,
    dispatches: 0,
    modelCalls: 0,
    scriptCalls: 0,
    opened: 0,
    refused: 0,
    refusals: {},
    statuses: {},
    lateResults: 0,
    workload: { turns: 0, sameTickEnds: 0, delayedEnds: 0, interrupts: 0, bursts: 0, executions: { javascript: 0, python: 0 } },
    chaos: { providerKills: 0, slowedStops: 0, stalls: 0, stalledMs: 0, observerKills: 0 },
    closedMidFlight: 0,
    observers: [],
    maxOvershootMs: 0,
    violations: [],
    durationMs: 0,
  };
  // At least `worlds` worlds, and as many more as it takes to reach `calls` (a world closed in
  // mid-flight makes fewer).
  for (let i = 0; i < options.worlds || report.dispatches < options.calls; i++) {
    const left = Math.max(0, options.calls - report.dispatches);
    await oneWorld(i, rng.fork(), Math.max(50, Math.ceil(left / Math.max(1, options.worlds - i))), options, report);
  }
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const seed = seedFromEnv();
  const calls = Number(process.env.FAULT_CALLS ?? 10_000);
  const worlds = Number(process.env.FAULT_WORLDS ?? Math.max(1, Math.round(calls / 1_000)));
  console.log(`fault run: seed ${seed} (reproduce with FAULT_SEED=${seed}), ${calls} calls over ${worlds} worlds`);
  const closeMidFlight = process.env.FAULT_CLOSE_MID === undefined ? undefined : Number(process.env.FAULT_CLOSE_MID);
  const report = await runFaults({ seed, calls, worlds, ...(closeMidFlight !== undefined ? { closeMidFlight } : {}), log: (line) => console.log(line) });
  for (const v of report.violations.slice(0, 50)) console.log(`VIOLATION ${v}`);
  const { violations, ...figures } = report;
  console.log(JSON.stringify({ ...figures, violations: violations.length }));
  process.exitCode = violations.length === 0 ? 0 : 1;
}
