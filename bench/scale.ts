/**
 * Scale benchmark (`npm run bench:scale`): the cost of JavaScript conversations.
 *
 * Then 10,000 conversations opened and closed in sequence (conversation-churn.ts): memory at
 * each 1,000 after a full GC (run with --expose-gc, as the npm script does), last / first.
 * A shorter control run first (`SCALE_CHURN_CONTROL`, default 3,000) ends only the streams, as
 * before `endConversation`, to show what the checkpoints catch. `SCALE_CHURN` sets how many
 * (0 skips both); `SCALE_PART=churn` runs only this part.
 *
 * N conversations (1, 4, 16, 32) each run one code_execution script of 200 sequential inner
 * calls at the same time, through the whole path (host dispatch, code_execution, the sandbox).
 * Each N runs twice (two bursts) on the same host. Per engine and N: throughput (inner calls/s),
 * sandbox processes alive after the burst, processes started by the second burst, and peak RSS
 * of the process tree (host plus every descendant) sampled while the bursts run. Both engines
 * are measured in the same run; the ratios are the targets for the default engine.
 * The last line is one JSON object with an `engine` key per figure.
 */
import { registerCodeExecution } from '../src/code-execution/index.ts';
import type { JsEngine } from '../src/runtime/js/index.ts';
import { churn, type ChurnFigures } from './conversation-churn.ts';
import { sandboxPids, startTreeSampler } from './proc.ts';
import { noopHost } from './rig.ts';

const CALLS = 200;
const SIZES = [1, 4, 16, 32];
const ENGINES = (process.env.SCALE_ENGINES ?? 'quickjs,v8').split(',') as JsEngine[];
const script = `for (let i = 0; i < ${CALLS}; i++) await tools.noop({ i }); return ${CALLS};`;

interface Figure {
  engine: JsEngine;
  conversations: number;
  callsPerSec: number;
  processes: number;
  startedBySecondBurst: number;
  peakRssMb: number;
}

async function measure(engine: JsEngine): Promise<Figure[]> {
  const host = noopHost();
  const codeExecution = registerCodeExecution(host, { engine, maxTimeLimitMs: 120_000, languages: ['javascript'] });
  const figures: Figure[] = [];
  const sampler = await startTreeSampler();
  try {
    const burst = async (n: number, tag: string) => {
      const streams = Array.from({ length: n }, (_, i) => host.openStream(`${engine}-${tag}-${i}`));
      const t = performance.now();
      await Promise.all(
        streams.map(async (stream) => {
          const outcome = await host.dispatch({
            inferenceId: stream.beginInference(),
            name: 'code_execution',
            input: { code: script, time_limit_ms: 120_000 },
          });
          const summary = outcome.result.structuredContent as { ok?: boolean } | undefined;
          if (!summary?.ok) throw new Error(`${engine} script failed: ${JSON.stringify(outcome.result).slice(0, 300)}`);
        }),
      );
      const ms = performance.now() - t;
      for (const stream of streams) stream.end();
      return ms;
    };
    await burst(2, 'warm');
    for (const n of SIZES) {
      // Sampled from its own process: a /proc walk in this one would slow the bursts it measures.
      await sampler.reset();
      const first = await burst(n, `${n}a`);
      const before = new Set(sandboxPids());
      const second = await burst(n, `${n}b`);
      const { peak } = await sampler.peak();
      const after = sandboxPids();
      figures.push({
        engine,
        conversations: n,
        callsPerSec: Math.round((n * CALLS) / (Math.min(first, second) / 1000)),
        processes: after.length,
        startedBySecondBurst: after.filter((pid) => !before.has(pid)).length,
        peakRssMb: Number((peak / 2 ** 20).toFixed(1)),
      });
    }
  } finally {
    sampler.close();
    await codeExecution.close();
    await host.close();
  }
  return figures;
}

const all: Figure[] = [];
const part = process.env.SCALE_PART ?? 'all';
if (part !== 'churn') for (const engine of ENGINES) all.push(...(await measure(engine)));

const ratios: Record<string, Record<string, number>> = {};
if (all.length > 0) {
  for (const engine of ENGINES) {
    const of = (n: number) => all.find((f) => f.engine === engine && f.conversations === n)!;
    const one = of(1);
    const last = of(SIZES[SIZES.length - 1]!);
    ratios[engine] = {
      throughput16VsOne: Number((of(16).callsPerSec / one.callsPerSec).toFixed(2)),
      throughput32VsOne: Number((last.callsPerSec / one.callsPerSec).toFixed(2)),
      rssMbPerAddedConversation: Number(((last.peakRssMb - one.peakRssMb) / (last.conversations - 1)).toFixed(2)),
    };
  }

  for (const f of all) {
    console.log(
      `${f.engine.padEnd(8)} N=${String(f.conversations).padStart(2)}  ${String(f.callsPerSec).padStart(6)} calls/s  ` +
        `${f.processes} processes (${f.startedBySecondBurst} started by the second burst)  peak RSS ${f.peakRssMb} MB`,
    );
  }
  for (const engine of ENGINES) {
    const r = ratios[engine]!;
    console.log(
      `${engine}: throughput N=16 ${r.throughput16VsOne}x and N=32 ${r.throughput32VsOne}x N=1 (target ≥ 0.8); ` +
        `${r.rssMbPerAddedConversation} MB RSS per added conversation (target ≤ 8)`,
    );
  }
}

const churnTotal = Number(process.env.SCALE_CHURN ?? 10_000);
let conversationChurn: ChurnFigures | undefined;
let churnControl: ChurnFigures | undefined;
if (churnTotal > 0) {
  // The control first, shorter: the same conversations ending only their streams.
  const controlTotal = Math.min(churnTotal, Number(process.env.SCALE_CHURN_CONTROL ?? 3_000));
  console.log(`control: ${controlTotal.toLocaleString()} conversations that only end their streams (no endConversation):`);
  churnControl = await churn(controlTotal, Number(process.env.SCALE_CHURN_PYTHON_EVERY ?? 50), 1_000, false);
  const pythonEvery = Number(process.env.SCALE_CHURN_PYTHON_EVERY ?? 50);
  console.log(`${churnTotal.toLocaleString()} conversations in sequence (QuickJS), each one JavaScript script with an inner call, one in ${pythonEvery} also a Python one, then host.endConversation:`);
  conversationChurn = await churn(churnTotal, pythonEvery);
  const r = conversationChurn.ratios;
  console.log(
    `last / first checkpoint: heap ${r.heap}x, host RSS ${r.hostRss}x, process tree RSS ${r.treeRss}x, sandbox processes RSS ${r.sandboxRss}x ` +
      `(target 0.9–1.1: ${conversationChurn.withinTenPercent ? 'met' : 'not met'}); over all checkpoints, tree RSS ${conversationChurn.ranges.treeRss.join('–')}x, ` +
      `sandbox RSS ${conversationChurn.ranges.sandboxRss.join('–')}x the first; ${conversationChurn.failures.count} runs failed`,
  );
}
console.log(JSON.stringify({ callsPerScript: CALLS, figures: all, ratios: all.length > 0 ? ENGINES.map((engine) => ({ engine, ...ratios[engine] })) : [], conversationChurn, churnControl }));
