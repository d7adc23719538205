/**
 * JavaScript sandbox benchmark (`npm run bench:sandbox`).
 *
 * Measures toolcell's JsRuntime and @earendil-works/pi-codemode on the same work in one run,
 * rounds interleaved so drift on a shared machine hits both alike:
 * - latency of consecutive `return 1` runs (warm);
 * - 10,000 sequential no-op tool calls, and 10,000 parallel ones (calls per second);
 * - one call returning a 1 MB JSON object, next to the JSON floor: JSON.stringify plus
 *   JSON.parse of that object in the host, the least any JSON boundary can cost.
 * Every figure is a median over rounds. The last line is one JSON object.
 */
import { CodemodeSandbox } from '@earendil-works/pi-codemode';
import { JsRuntime } from '../src/runtime/js/index.ts';
import type { ToolBinding } from '../src/runtime/types.ts';

const CALLS = 10_000;
const ROUNDS = 5;
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
const runtime = new JsRuntime({ poolSize: 1, limits: { maxCalls: CALLS * 2, maxInFlight: CALLS, timeoutMs: 120_000 } });
const pi = new CodemodeSandbox({
  timeoutMs: 120_000,
  tools: [
    { name: 'noop', execute: async () => ({ ok: true }) },
    { name: 'big', execute: async () => big },
  ],
});

async function ours(code: string): Promise<number> {
  const t = performance.now();
  const result = await runtime.execute(code, { tools: bindings });
  const ms = performance.now() - t;
  if (!result.ok) throw new Error(`toolcell run failed: ${result.error.kind}: ${result.error.message}`);
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

// Warm both (JIT, pools, the wasm module) on every workload before measuring.
for (const code of ['return 1', seqScript, parScript, payloadScript]) {
  await ours(code);
  await theirs(code);
}
floorMs();

const latency: number[] = [];
const piLatency: number[] = [];
const seq: number[] = [];
const piSeq: number[] = [];
const par: number[] = [];
const piPar: number[] = [];
const payload: number[] = [];
const piPayload: number[] = [];
const floor: number[] = [];

for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < LATENCY_RUNS / ROUNDS; i++) latency.push(await ours('return 1'));
  for (let i = 0; i < Math.ceil(PI_LATENCY_RUNS / ROUNDS); i++) piLatency.push(await theirs('return 1'));
  seq.push(CALLS / ((await ours(seqScript)) / 1000));
  piSeq.push(CALLS / ((await theirs(seqScript)) / 1000));
  par.push(CALLS / ((await ours(parScript)) / 1000));
  piPar.push(CALLS / ((await theirs(parScript)) / 1000));
  floor.push(floorMs());
  payload.push(await ours(payloadScript));
  piPayload.push(await theirs(payloadScript));
}

await runtime.close();
await pi.close();

const figures = {
  executeMs: round(median(latency), 3),
  piExecuteMs: round(median(piLatency)),
  seqCallsPerSec: Math.round(median(seq)),
  piSeqCallsPerSec: Math.round(median(piSeq)),
  parCallsPerSec: Math.round(median(par)),
  piParCallsPerSec: Math.round(median(piPar)),
  payloadMs: round(median(payload)),
  piPayloadMs: round(median(piPayload)),
  payloadFloorMs: round(median(floor)),
  payloadBytes: bigBytes,
};
const ratios = {
  executeVsPi: round(figures.piExecuteMs / figures.executeMs, 1),
  seqVsPi: round(figures.seqCallsPerSec / figures.piSeqCallsPerSec),
  parVsPi: round(figures.parCallsPerSec / figures.piParCallsPerSec),
  payloadVsFloor: round(figures.payloadMs / figures.payloadFloorMs),
};

console.log(`return 1:          ${figures.executeMs} ms   (pi ${figures.piExecuteMs} ms, ${ratios.executeVsPi}x faster)`);
console.log(`sequential calls:  ${figures.seqCallsPerSec}/s   (pi ${figures.piSeqCallsPerSec}/s, ${ratios.seqVsPi}x)`);
console.log(`parallel calls:    ${figures.parCallsPerSec}/s   (pi ${figures.piParCallsPerSec}/s, ${ratios.parVsPi}x)`);
console.log(`1 MB result:       ${figures.payloadMs} ms   (floor ${figures.payloadFloorMs} ms, ${ratios.payloadVsFloor}x; pi ${figures.piPayloadMs} ms)`);
console.log(JSON.stringify({ ...figures, ...ratios }));
