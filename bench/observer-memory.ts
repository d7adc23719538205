/**
 * Memory under a stuck observer (issue 9, item 5): one observer granted observe + inputs,
 * asking for every call's input, while the host dispatches 2,000 calls/s with 15 KB inputs.
 * Run twice in the same process: the observer reading (baseline), then stopped with SIGSTOP
 * for the whole run. Reports the host's peak RSS of each and their difference (target: within
 * 64 MB). `MEM_SECONDS` sets each run's length (default 60).
 *
 * The last line is one JSON object with the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { attachObservers, noopHost } from './rig.ts';

const RATE = 2_000;
const SECONDS = Number(process.env.MEM_SECONDS ?? 60);
const INPUT = { blob: 'x'.repeat(15_000) };

async function run(stall: boolean): Promise<{ peakRssMb: number; dropped: number; highWaterMb: number }> {
  const dir = mkdtempSync(`${tmpdir()}/toolcell-mem-`);
  const host = noopHost();
  try {
    const [observer] = await attachObservers(host, dir, 1, { maxObservedCallsPerSecond: Infinity });
    const pid = observer!.pid!;
    if (stall) process.kill(pid, 'SIGSTOP');
    const inferenceId = host.beginInference({ conversationId: 'mem' });
    global.gc?.();
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const start = performance.now();
    let sent = 0;
    while (performance.now() - start < SECONDS * 1000) {
      // Dispatch what the rate allows so far, then let the event loop (and delivery) run.
      const due = Math.floor(((performance.now() - start) / 1000) * RATE);
      while (sent < due) {
        void host.dispatch({ inferenceId, name: 'noop', input: { ...INPUT, i: sent } });
        sent += 1;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    clearInterval(sampler);
    const stats = observer!.queue.stats;
    if (stall) process.kill(pid, 'SIGCONT');
    return { peakRssMb: Math.round(peak / 2 ** 20), dropped: stats.droppedCalls, highWaterMb: Math.round((stats.highWaterBytes / 2 ** 20) * 10) / 10 };
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const reading = await run(false);
console.log(`observer reading: peak RSS ${reading.peakRssMb} MB, queue high water ${reading.highWaterMb} MB, ${reading.dropped} calls dropped`);
const stopped = await run(true);
console.log(`observer stopped: peak RSS ${stopped.peakRssMb} MB, queue high water ${stopped.highWaterMb} MB, ${stopped.dropped} calls dropped`);
const differenceMb = stopped.peakRssMb - reading.peakRssMb;
console.log(`difference ${differenceMb} MB (target ≤ 64 MB), ${RATE} calls/s of 15 KB inputs for ${SECONDS} s each`);
console.log(JSON.stringify({ rate: RATE, seconds: SECONDS, inputBytes: 15_000, reading, stopped, differenceMb, withinTarget: differenceMb <= 64 }));
