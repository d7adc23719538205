/**
 * JavaScript sandbox benchmark (`npm run bench:sandbox`).
 *
 * Measures toolcell's JsRuntime with each engine (quickjs, the default, with its VMs on worker
 * threads of the host; quickjs-processes, its VMs in the pool of sandbox processes; and v8) and
 * @earendil-works/pi-codemode on the same work in one run, rounds interleaved so drift on a
 * shared machine hits all alike:
 * - latency of consecutive `return 1` runs (warm);
 * - 10,000 sequential no-op tool calls, and 10,000 parallel ones (calls per second);
 * - one call returning a 1 MB JSON object, next to the JSON floor: JSON.stringify plus
 *   JSON.parse of that object in the host, the least any JSON boundary can cost.
 * Every figure is a median over rounds. The last line is one JSON object: `figures`, one entry
 * per engine (`engine` key), with its ratios to pi-codemode and to the JSON floor.
 */
import os from 'node:os';
import { CodemodeSandbox } from '@earendil-works/pi-codemode';
import { JsRuntime, type JsEngine } from '../src/runtime/js/index.ts';
import type { ToolBinding } from '../src/runtime/types.ts';

const CALLS = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LATENCY_RUNS = 40;
const PI_LATENCY_RUNS = 7;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

/** About 1 MB of JSON: records with strings, numbers, arrays and a nested object. */
function megabyteObject(): { items: unknown[] } {
  const items: unknown[] = [];
  let size = 0;
  for (let i = 0; size < 1_000_000; i++) {
    const item = {
      id: i,
      name: `item-${i}-${'x'.repeat(i % 17)}`,
      score: (i * 7919) % 1000 / 10,
      active: i % 3 === 0,
      tags: ['alpha', 'beta', `t${i % 50}`],
      owner: { id: i % 97, email: `user${i % 97}@example.com`, roles: ['reader', i % 5 === 0 ? 'admin' : 'writer'] },
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return { items };
}

const big = megabyteObject();
const bigBytes = JSON.stringify(big).length;

const seqScript = `for (let i = 0; i < ${CALLS}; i++) await tools.noop({ i }); return ${CALLS};`;
const parScript = `const all = []; for (let i = 0; i < ${CALLS}; i++) all.push(tools.noop({ i })); await Promise.all(all); return ${CALLS};`;
const payloadScript = 'const r = await tools.big({}); return r.items.length;';

const bindings: ToolBinding[] = [
  { name: 'noop', invoke: async () => ({ ok: true }) },
  { name: 'big', invoke: async () => big },
];
/** `quickjs-processes`: the QuickJS engine with its VMs in sandbox processes (quickjsThreads: false). */
type Variant = JsEngine | 'quickjs-processes';
const ENGINES: Variant[] = ['quickjs', 'quickjs-processes', 'v8'];
const limits = { maxCalls: CALLS * 2, maxInFlight: CALLS, timeoutMs: 120_000 };
const runtimes = new Map(ENGINES.map((variant) => [variant, new JsRuntime({
  engine: variant === 'v8' ? 'v8' : 'quickjs',
  ...(variant === 'quickjs-processes' ? { quickjsThreads: false } : {}),
  poolSize: 1,
  limits,
})]));
const pi = new CodemodeSandbox({
  timeoutMs: 120_000,
  tools: [
    { name: 'noop', execute: async () => ({ ok: true }) },
    { name: 'big', execute: async () => big },
  ],
});

async function ours(engine: Variant, code: string): Promise<number> {
  const t = performance.now();
  // A conversation, as code_execution runs it: its own VM (quickjs) or process (v8).
  const result = await runtimes.get(engine)!.execute(code, { tools: bindings, conversation: 'bench' });
  const ms = performance.now() - t;
  if (!result.ok) throw new Error(`toolcell ${engine} run failed: ${result.error.kind}: ${result.error.message}`);
  return ms;
}

async function theirs(code: string): Promise<number> {
  const t = performance.now();
  const result = await pi.execute(code);
  const ms = performance.now() - t;
  if (!result.ok) throw new Error(`pi-codemode run failed: ${result.error.kind}: ${result.error.message}`);
  return ms;
}

function floorMs(): number {
  const t = performance.now();
  JSON.parse(JSON.stringify(big));
  return performance.now() - t;
}

// Warm every sandbox (JIT, pools, the wasm module) on every workload before measuring.
for (const code of ['return 1', seqScript, parScript, payloadScript]) {
  for (const engine of ENGINES) await ours(engine, code);
  await theirs(code);
}
floorMs();

interface Samples {
  latency: number[];
  seq: number[];
  par: number[];
  payload: number[];
}
const samples = (): Samples => ({ latency: [], seq: [], par: [], payload: [] });
const mine = new Map(ENGINES.map((engine) => [engine, samples()]));
const theirsSamples = samples();
const floor: number[] = [];

for (let r = 0; r < ROUNDS; r++) {
  for (const engine of ENGINES) {
    const s = mine.get(engine)!;
    for (let i = 0; i < LATENCY_RUNS / ROUNDS; i++) s.latency.push(await ours(engine, 'return 1'));
    s.seq.push(CALLS / ((await ours(engine, seqScript)) / 1000));
    s.par.push(CALLS / ((await ours(engine, parScript)) / 1000));
  }
  for (let i = 0; i < Math.ceil(PI_LATENCY_RUNS / ROUNDS); i++) theirsSamples.latency.push(await theirs('return 1'));
  theirsSamples.seq.push(CALLS / ((await theirs(seqScript)) / 1000));
  theirsSamples.par.push(CALLS / ((await theirs(parScript)) / 1000));
  floor.push(floorMs());
  for (const engine of ENGINES) mine.get(engine)!.payload.push(await ours(engine, payloadScript));
  theirsSamples.payload.push(await theirs(payloadScript));
}

await Promise.all([...runtimes.values()].map((r) => r.close()));
await pi.close();

const summary = (s: Samples) => ({
  executeMs: round(median(s.latency), 3),
  seqCallsPerSec: Math.round(median(s.seq)),
  parCallsPerSec: Math.round(median(s.par)),
  payloadMs: round(median(s.payload)),
});
const piFigures = summary(theirsSamples);
const payloadFloorMs = round(median(floor));
const figures = [
  ...ENGINES.map((engine) => {
    const f = summary(mine.get(engine)!);
    return {
      engine,
      ...f,
      executeVsPi: round(piFigures.executeMs / f.executeMs, 1),
      seqVsPi: round(f.seqCallsPerSec / piFigures.seqCallsPerSec),
      parVsPi: round(f.parCallsPerSec / piFigures.parCallsPerSec),
      payloadVsFloor: round(f.payloadMs / payloadFloorMs),
    };
  }),
  { engine: 'pi-codemode', ...piFigures, payloadVsFloor: round(piFigures.payloadMs / payloadFloorMs) },
];

for (const f of figures) {
  console.log(`${f.engine}:`);
  console.log(`  return 1:          ${f.executeMs} ms${'executeVsPi' in f ? `   (${f.executeVsPi}x faster than pi-codemode)` : ''}`);
  console.log(`  sequential calls:  ${f.seqCallsPerSec}/s${'seqVsPi' in f ? `   (${f.seqVsPi}x pi-codemode)` : ''}`);
  console.log(`  parallel calls:    ${f.parCallsPerSec}/s${'parVsPi' in f ? `   (${f.parVsPi}x pi-codemode)` : ''}`);
  console.log(`  1 MB result:       ${f.payloadMs} ms   (${f.payloadVsFloor}x the JSON floor of ${payloadFloorMs} ms)`);
}
console.log(JSON.stringify({ payloadBytes: bigBytes, payloadFloorMs, loadAverage: os.loadavg().map((x) => round(x)), figures }));
