/**
 * A neighbour's latency beside one busy tenant, with the neighbour's "alone" figure measured in
 * the same run, interleaved (issue 40 acceptance): used by `npm run bench:neighbour` and by
 * test/security/neighbour-latency.test.ts.
 *
 * Rounds alternate two phases. Alone: conversation `neighbour` runs `return x + await
 * tools.echo(1)` (one inner tool call, on its kept session) RUNS_PER_PHASE times. Beside: tenant
 * `busy` starts `spinners` conversations of `for (;;);` and one heavy script (JSON.parse of a
 * 4 MB string, over and over), then the neighbour runs as many times; the busy runs are aborted
 * at the end of the phase. Measuring alone and beside in turns, rather than alone first, keeps a
 * change in the machine's load (other processes) from falling on one phase only. The host's
 * event-loop delay is sampled (perf_hooks.monitorEventLoopDelay) in each phase.
 */
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { JsRuntime } from '../src/runtime/js/index.ts';
import { tenantThreads } from '../src/runtime/js/engines/quickjs/pool.ts';

export interface InterleavedFigures {
  aloneP50: number;
  aloneP99: number;
  besideP50: number;
  besideP99: number;
  /** besideP99 ÷ aloneP99: 1 means the busy tenant costs the neighbour nothing. */
  p99Ratio: number;
  /** The host's event-loop delay, ms: its 99th percentile and its max, in each phase. */
  loopAloneP99: number;
  loopBesideP99: number;
  loopBesideMax: number;
  /** Neighbour runs that found their session gone (must be 0). */
  lostSessions: number;
}

const tools = [{ name: 'echo', invoke: async (args: unknown) => args }];
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const round = (x: number): number => Number(x.toFixed(2));
const HEAVY = "const s = JSON.stringify(Array.from({ length: 40000 }, (_, i) => ({ i, t: 'x'.repeat(80) }))); for (;;) JSON.parse(s);";

/** Measures on a runtime of the default configuration (QuickJS on threads). */
export async function measureInterleaved({ rounds = 3, runsPerPhase = 20, spinners = 4 } = {}): Promise<InterleavedFigures> {
  const runtime = new JsRuntime({});
  try {
    const neighbour = async (): Promise<{ ms: number; fresh: boolean }> => {
      const t = performance.now();
      const r = await runtime.execute('return x + await tools.echo(1)', { tools, conversation: 'neighbour/main' });
      const ms = performance.now() - t;
      if (!r.ok || r.value !== 42) throw new Error(`the neighbour's run failed: ${JSON.stringify(r)}`);
      return { ms, fresh: r.session?.fresh === true };
    };
    await runtime.execute('x = 41', { tools, conversation: 'neighbour/main' });
    // Warm first: a thread's first runs tier its WebAssembly up.
    for (let i = 0; i < 10; i++) await neighbour();
    const alone: number[] = [];
    const beside: number[] = [];
    const loopAlone: number[] = [];
    const loopBeside: number[] = [];
    let loopBesideMax = 0;
    let lostSessions = 0;
    const phase = async (into: number[]): Promise<void> => {
      for (let i = 0; i < runsPerPhase; i++) {
        const r = await neighbour();
        into.push(r.ms);
        if (r.fresh) {
          lostSessions++;
          await runtime.execute('x = 41', { tools, conversation: 'neighbour/main' });
        }
      }
    };
    for (let round = 0; round < rounds; round++) {
      let delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      await phase(alone);
      delay.disable();
      loopAlone.push(delay.percentile(99) / 1e6);

      const stop = new AbortController();
      let started = 0;
      let allStarted!: () => void;
      const spinning = new Promise<void>((resolve) => (allStarted = resolve));
      // The default pool has max(4, 2 × cores) threads and a tenant holds half of them at most
      // (engines/quickjs/pool.ts): that many busy runs start, the others wait behind them.
      const running = Math.min(spinners + 1, tenantThreads(Math.max(4, 2 * os.availableParallelism())));
      const startedTool = {
        name: 'started',
        invoke: async () => {
          if (++started === running) allStarted();
          return null;
        },
      };
      const busy = [...Array.from({ length: spinners }, () => 'await tools.started(); for (;;);'), `await tools.started(); ${HEAVY}`].map((code, i) =>
        runtime.execute(code, { tools: [startedTool], conversation: `busy/${i}`, timeoutMs: 120_000, signal: stop.signal }));
      // Measured once the busy runs hold their threads: the neighbour then meets all of them.
      await spinning;
      delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      await phase(beside);
      delay.disable();
      loopBeside.push(delay.percentile(99) / 1e6);
      loopBesideMax = Math.max(loopBesideMax, delay.max / 1e6);
      stop.abort();
      const ends = await Promise.all(busy);
      for (const end of ends) if (end.ok || end.error.kind !== 'aborted') throw new Error(`a busy run ended otherwise than aborted: ${JSON.stringify(end)}`);
    }
    const f = { aloneP50: pct(alone, 0.5), aloneP99: pct(alone, 0.99), besideP50: pct(beside, 0.5), besideP99: pct(beside, 0.99) };
    return {
      aloneP50: round(f.aloneP50),
      aloneP99: round(f.aloneP99),
      besideP50: round(f.besideP50),
      besideP99: round(f.besideP99),
      p99Ratio: round(f.besideP99 / f.aloneP99),
      loopAloneP99: round(Math.max(...loopAlone)),
      loopBesideP99: round(Math.max(...loopBeside)),
      loopBesideMax: round(loopBesideMax),
      lostSessions,
    };
  } finally {
    await runtime.close();
  }
}
