/**
 * How far toolcell's sequential inner calls are from the floor of any design that hands each
 * call from a worker thread to the host's event loop and back (`npm run bench:handoff`).
 *
 * Subjects, each a fresh process per round, rounds interleaved (the starting subject rotates):
 * - `floor-0`, `floor-10`, `floor-20`: a bare ping-pong between a worker thread and the host's
 *   loop (bench/handoff/floor.mjs), with 0/0, 10/3 and 20/5 µs of work on the thread/host side
 *   per call. 20/5 is toolcell's own work per call, measured on the 2-core machine: its sandbox
 *   thread spends 16 µs per call with the host's answers made on the thread itself, 23 µs with
 *   the frames (held to one CPU, and on two idle CPUs); the host's thread about 5 µs;
 * - `toolcell`: bench:peers' 10,000 sequential no-op calls through `JsRuntime`
 *   (bench/handoff/toolcell.mjs, given the script by this file).
 *
 * The set runs idle, then beside two busy-looping processes. Each subject's figure is the median
 * of its passes within a round, then the median over rounds. The last line is one JSON object:
 * each subject's median calls/s per run and `toolcellVsFloor20` per run. `BENCH_ROUNDS`
 * (default 5) and `BENCH_PASSES` (default 3) set the sizes; `BENCH_RUNS=idle` or `=loaded` runs
 * one half.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { buildDist } from './peers/built.ts';
import { NO_PAYLOAD, SEQ_CALLS, toolsDialect, workload } from './peers/workloads.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PASSES = Number(process.env.BENCH_PASSES ?? 3);
const CALLS = SEQ_CALLS;
/** bench:peers' sequential workload, which toolcell's subject runs as it is. */
const SEQ = workload('seq', toolsDialect, NO_PAYLOAD);
const RUNS = (process.env.BENCH_RUNS ?? 'idle,loaded').split(',') as ('idle' | 'loaded')[];
const FLOOR = fileURLToPath(new URL('./handoff/floor.mjs', import.meta.url));
const TOOLCELL = fileURLToPath(new URL('./handoff/toolcell.mjs', import.meta.url));

const SUBJECTS = {
  'floor-0': [FLOOR, '0', '0'],
  'floor-10': [FLOOR, '10', '3'],
  'floor-20': [FLOOR, '20', '5'],
  toolcell: [TOOLCELL, SEQ.script, String(SEQ_CALLS)],
} as const;
type Subject = keyof typeof SUBJECTS;
const NAMES = Object.keys(SUBJECTS) as Subject[];

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = (): number => Number(loadavg()[0]!.toFixed(2));

/** Runs one subject's process to its end; the median of its passes' calls/s. */
function measure(subject: Subject): Promise<number> {
  const [file, ...work] = SUBJECTS[subject];
  const child = spawn(process.execPath, [file, ...work, String(CALLS), String(PASSES)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      try {
        if (code !== 0) throw new Error(`exit code ${code}`);
        const { rates } = JSON.parse(line) as { rates: number[] };
        resolve(median(rates));
      } catch (error) {
        reject(new Error(`${subject}: ${(error as Error).message}; it printed ${JSON.stringify(line.slice(0, 300))}`));
      }
    });
  });
}

function startBusyLoops(): ChildProcess[] {
  return [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

async function run(kind: 'idle' | 'loaded'): Promise<{ run: string; loadBefore: number; loadAfter: number; callsPerSec: Record<Subject, number> }> {
  const loops = kind === 'loaded' ? startBusyLoops() : [];
  try {
    if (loops.length > 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
    const loadBefore = load();
    const samples = new Map<Subject, number[]>(NAMES.map((s) => [s, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < NAMES.length; i++) {
        const subject = NAMES[(round + i) % NAMES.length]!;
        samples.get(subject)!.push(await measure(subject));
      }
    }
    const callsPerSec = Object.fromEntries(NAMES.map((s) => [s, median(samples.get(s)!)])) as Record<Subject, number>;
    for (const s of NAMES) process.stderr.write(`${kind} ${s.padEnd(9)} ${samples.get(s)!.join(' ')}\n`);
    return { run: kind, loadBefore, loadAfter: load(), callsPerSec };
  } finally {
    for (const loop of loops) loop.kill('SIGKILL');
  }
}

buildDist('bench:handoff');

const results = [];
for (const kind of RUNS) results.push(await run(kind));

console.log(`${'run'.padEnd(8)} ${'load'.padEnd(12)} ${NAMES.map((s) => s.padStart(9)).join(' ')}  toolcell ÷ floor-20`);
const ratios: Record<string, number> = {};
for (const r of results) {
  const ratio = Number((r.callsPerSec.toolcell / r.callsPerSec['floor-20']).toFixed(2));
  ratios[r.run] = ratio;
  console.log(`${r.run.padEnd(8)} ${`${r.loadBefore} → ${r.loadAfter}`.padEnd(12)} ${NAMES.map((s) => String(r.callsPerSec[s]).padStart(9)).join(' ')}  ${ratio}`);
}
console.log(JSON.stringify({ calls: CALLS, rounds: ROUNDS, passes: PASSES, toolcellVsFloor20: ratios, runs: results }));
