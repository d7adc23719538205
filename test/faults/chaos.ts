/**
 * The faults a run injects while its workload runs, each on its own random schedule: the
 * provider process SIGKILLed (mid-call, when calls are in flight), the slowed observer stopped
 * and continued in short cycles, the stalled observer stopped (SIGSTOP) for seconds at a time,
 * the doomed observer killed once. `stop()` continues every stopped process and ends the loops.
 */
import type { Rng } from './rng.ts';
import type { World } from './world.ts';

export interface ChaosCounts {
  providerKills: number;
  slowedStops: number;
  stalls: number;
  stalledMs: number;
  observerKills: number;
}

function signal(pid: number | undefined, sig: NodeJS.Signals): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false; // already gone
  }
}

export function startChaos(world: World, rng: Rng, providerCallsInFlight: () => number) {
  const counts: ChaosCounts = { providerKills: 0, slowedStops: 0, stalls: 0, stalledMs: 0, observerKills: 0 };
  let running = true;
  const timers = new Set<NodeJS.Timeout>();
  const wakers = new Set<() => void>();
  /** A sleep that stop() cuts short. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        timers.delete(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timers.add(timer);
      wakers.add(wake);
    });
  const stopped = new Set<string>();
  const pidOf = (id: string) => world.pid(id);

  const provider = (async () => {
    const r = rng.fork();
    while (running) {
      await sleep(r.int(200, 1200));
      if (!running) break;
      if (providerCallsInFlight() > 0 && signal(pidOf('p'), 'SIGKILL')) counts.providerKills += 1;
    }
  })();
  const slowed = (async () => {
    const r = rng.fork();
    while (running) {
      await sleep(r.int(10, 80));
      if (!running) break;
      if (signal(pidOf('slowed'), 'SIGSTOP')) {
        stopped.add('slowed');
        counts.slowedStops += 1;
        await sleep(r.int(5, 60));
        signal(pidOf('slowed'), 'SIGCONT');
        stopped.delete('slowed');
      }
    }
  })();
  const stalled = (async () => {
    const r = rng.fork();
    while (running) {
      await sleep(r.int(100, 1500));
      if (!running) break;
      if (signal(pidOf('stalled'), 'SIGSTOP')) {
        stopped.add('stalled');
        counts.stalls += 1;
        const ms = r.int(1000, 3000);
        const from = performance.now();
        await sleep(ms);
        counts.stalledMs += Math.round(performance.now() - from);
        signal(pidOf('stalled'), 'SIGCONT');
        stopped.delete('stalled');
      }
    }
  })();
  const doomed = (async () => {
    const r = rng.fork();
    await sleep(r.int(200, 4000));
    if (running && signal(pidOf('doomed'), 'SIGKILL')) counts.observerKills += 1;
  })();

  return {
    counts,
    async stop(): Promise<void> {
      running = false;
      for (const wake of [...wakers]) wake();
      await Promise.all([provider, slowed, stalled, doomed]);
      for (const id of ['slowed', 'stalled']) signal(pidOf(id), 'SIGCONT');
      stopped.clear();
    },
  };
}
