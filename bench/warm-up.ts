/**
 * Warm-up of sequential inner calls within one process (`npx tsx bench/warm-up.ts`): rounds of
 * 10,000 sequential no-op calls in one `JsRuntime` conversation, with each round's rate and
 * the CPU per call of the process's threads read from /proc/self/task: the main thread, the
 * busiest other thread (the sandbox thread) and all the rest (V8's platform threads, libuv's
 * pool). Baseline in the same run, first: a bare two-thread ping-pong (`postMessage` one way,
 * `Atomics.notify` the other, 20 µs of work per side per message), which has no warm-up of its
 * own, so that a curve in toolcell's rounds is toolcell's process warming up, not the machine.
 *
 * `ROUNDS` (default 6). Last line: JSON with both curves and `firstVsLast` for each.
 * docs/benchmarks.md ("A shipped template, bare-node subjects, a lighter import") reads it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { MessageChannel, Worker } from 'node:worker_threads';
import { JsRuntime } from '../src/runtime/js/index.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 6);
const CALLS = 10_000;
const TICK_US = 10_000; // /proc times are in clock ticks of 10 ms

/** CPU ticks so far of each thread of this process, by thread id. */
function threadTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(Number(tid), Number(fields[11]) + Number(fields[12]));
    } catch {
      // The thread ended between the listing and the read: it has no figure for this round.
    }
  }
  return ticks;
}

interface Round {
  perSec: number;
  mainUs: number;
  busiestOtherUs: number;
  restUs: number;
}

/** Times `round()` and splits the process's CPU over its threads, per call. */
async function measure(round: () => Promise<void>): Promise<Round> {
  const before = threadTicks();
  const started = performance.now();
  await round();
  const seconds = (performance.now() - started) / 1000;
  const spent = [...threadTicks()].map(([tid, t]) => [tid, ((t - (before.get(tid) ?? 0)) * TICK_US) / CALLS] as const);
  const main = spent.find(([tid]) => tid === process.pid)?.[1] ?? 0;
  const others = spent.filter(([tid]) => tid !== process.pid).map(([, us]) => us).sort((a, b) => b - a);
  const busiest = others[0] ?? 0;
  const rest = others.slice(1).reduce((a, b) => a + b, 0);
  return { perSec: Math.round(CALLS / seconds), mainUs: Math.round(main), busiestOtherUs: Math.round(busiest), restUs: Math.round(rest) };
}

/** The bare ping-pong: a worker posts, the main thread answers through a shared board. */
async function pingPongRounds(): Promise<Round[]> {
  const board = new Int32Array(new SharedArrayBuffer(4));
  const toMain = new MessageChannel();
  const toWorker = new MessageChannel();
  const worker = new Worker(
    `const { workerData, receiveMessageOnPort } = require('node:worker_threads');
     const board = new Int32Array(workerData.board);
     const work = () => { const end = performance.now() + 0.02; while (performance.now() < end); };
     let seen = 0;
     for (;;) {
       work();
       workerData.out.postMessage(seen);
       Atomics.wait(board, 0, seen);
       seen = Atomics.load(board, 0);
       const m = receiveMessageOnPort(workerData.in);
       if (m && m.message === 'stop') break;
     }`,
    { eval: true, workerData: { board: board.buffer, out: toMain.port2, in: toWorker.port2 }, transferList: [toMain.port2, toWorker.port2] },
  );
  let answer: () => void = () => {};
  let count = 0;
  toMain.port1.on('message', () => {
    const end = performance.now() + 0.02;
    while (performance.now() < end);
    if (++count === CALLS) answer();
    toWorker.port1.postMessage('go');
    Atomics.add(board, 0, 1);
    Atomics.notify(board, 0);
  });
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    count = 0;
    rounds.push(await measure(() => new Promise<void>((resolve) => (answer = resolve))));
  }
  toWorker.port1.postMessage('stop');
  Atomics.add(board, 0, 1);
  Atomics.notify(board, 0);
  await worker.terminate();
  toMain.port1.close();
  toWorker.port1.close();
  return rounds;
}

async function toolcellRounds(): Promise<Round[]> {
  const runtime = new JsRuntime({ limits: { maxCalls: 1_000_000, maxInFlight: 10_000, timeoutMs: 120_000 } });
  const tools = [{ name: 'noop', invoke: async () => ({ ok: true }) }];
  const script = `for (let i = 0; i < ${CALLS}; i++) await tools.noop({ i }); return 1;`;
  try {
    // The thread is started and the conversation's VM made before the first timed round.
    const first = await runtime.execute('return 1', { tools, conversation: 'c' });
    if (!first.ok) throw new Error(`warm-up run failed: ${first.error.message}`);
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      rounds.push(
        await measure(async () => {
          const result = await runtime.execute(script, { tools, conversation: 'c', timeoutMs: 120_000 });
          if (!result.ok) throw new Error(`round ${r} failed: ${result.error.message}`);
        }),
      );
    }
    return rounds;
  } finally {
    await runtime.close();
  }
}

const show = (label: string, rounds: Round[]) => {
  console.log(label);
  rounds.forEach((r, i) => console.log(`  round ${i + 1}: ${r.perSec}/s; CPU per call: main ${r.mainUs} µs, busiest other thread ${r.busiestOtherUs} µs, all others ${r.restUs} µs`));
};

const loadBefore = loadavg()[0]!;
const pingPong = await pingPongRounds();
show('bare two-thread ping-pong (20 µs of work per side per message)', pingPong);
const toolcell = await toolcellRounds();
show('toolcell JsRuntime, one conversation, 10,000 sequential calls per round', toolcell);
const ratio = (rounds: Round[]) => Number((rounds[0]!.perSec / rounds.at(-1)!.perSec).toFixed(2));
console.log(`first round ÷ last: ping-pong ${ratio(pingPong)}, toolcell ${ratio(toolcell)} (load ${loadBefore.toFixed(2)} → ${loadavg()[0]!.toFixed(2)})`);
console.log(JSON.stringify({ loadBefore, loadAfter: loadavg()[0], pingPong, toolcell, firstVsLast: { pingPong: ratio(pingPong), toolcell: ratio(toolcell) } }));
