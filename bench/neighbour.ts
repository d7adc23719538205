/**
 * Noisy-neighbour benchmark (`npm run bench:neighbour`).
 *
 * Conversation B runs `return x + 1` on its kept session, first alone, then while conversation
 * A spins (a fresh spinning run whenever the last one timed out). Prints B's p50/p99 latency in
 * each phase, for QuickJS on processes (the default) and on threads (`quickjsThreads`). The last
 * line is JSON; `p99Ratio` is B's p99 beside the neighbour ÷ alone (1 means no harm).
 */
import { JsRuntime } from '../src/runtime/js/index.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 60);
const tools = [{ name: 'echo', invoke: async (args: unknown) => args }];
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const round = (x: number): number => Number(x.toFixed(2));

async function measure(threads: boolean): Promise<{ mode: string; aloneP50: number; aloneP99: number; besideP50: number; besideP99: number; p99Ratio: number; lostSessions: number }> {
  const runtime = new JsRuntime({ quickjsThreads: threads, pool: { maxProcesses: 4 } });
  const b = async (): Promise<{ ms: number; fresh: boolean }> => {
    const t = performance.now();
    const r = await runtime.execute('return x + 1', { tools, conversation: 'B' });
    if (!r.ok) throw new Error(`B failed: ${r.error.message}`);
    return { ms: performance.now() - t, fresh: r.session?.fresh === true };
  };
  await runtime.execute('x = 41', { tools, conversation: 'B' });
  const alone: number[] = [];
  for (let i = 0; i < RUNS; i++) alone.push((await b()).ms);
  let stop = false;
  const spinner = (async () => {
    while (!stop) await runtime.execute('for (;;);', { tools, conversation: 'A', timeoutMs: 500 });
  })();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const beside: number[] = [];
  let lostSessions = 0;
  for (let i = 0; i < RUNS; i++) {
    const r = await b();
    beside.push(r.ms);
    if (r.fresh) {
      lostSessions++;
      await runtime.execute('x = 41', { tools, conversation: 'B' });
    }
  }
  stop = true;
  await spinner;
  await runtime.close();
  const f = { aloneP50: pct(alone, 0.5), aloneP99: pct(alone, 0.99), besideP50: pct(beside, 0.5), besideP99: pct(beside, 0.99) };
  return {
    mode: threads ? 'quickjs-threads' : 'quickjs-processes',
    aloneP50: round(f.aloneP50), aloneP99: round(f.aloneP99), besideP50: round(f.besideP50), besideP99: round(f.besideP99),
    p99Ratio: round(f.besideP99 / f.aloneP99),
    lostSessions,
  };
}

const figures = [await measure(false), await measure(true)];
for (const f of figures) {
  console.log(`${f.mode}: B alone p50 ${f.aloneP50} ms p99 ${f.aloneP99} ms; beside a spinner p50 ${f.besideP50} ms p99 ${f.besideP99} ms (${f.p99Ratio}x); sessions lost ${f.lostSessions}`);
}
console.log(JSON.stringify({ runs: RUNS, figures, p99Ratio: figures[1]!.p99Ratio }));
