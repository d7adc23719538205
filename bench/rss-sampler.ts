/**
 * Out-of-process RSS sampler for the benchmarks: forked by proc.ts's `startTreeSampler()`, it
 * walks /proc every `intervalMs` (argv[2]) for the tree of a root process (argv[3] at first,
 * then the root of the latest `reset`), itself left out, and keeps the peak RSS between a
 * `reset` and a `peak` message. It walks only in that span: a walk every few ms costs a fifth of
 * a core, which between figures would only load the machine the other figures are taken on.
 * It runs in its own process so that the walk (40–700 ms on a
 * loaded machine) costs the measured process nothing: sampling inside it, as bench:scale once
 * did, made its throughput figures measure the sampler. The walk is proc.ts's `descendants()`.
 */
import { descendants, rssBytes } from './proc.ts';

const intervalMs = Number(process.argv[2] ?? 25);
let root = Number(process.argv[3] ?? process.ppid);

function sample(): number {
  let sum = rssBytes(root);
  for (const pid of descendants(root)) if (pid !== process.pid) sum += rssBytes(pid);
  return sum;
}

let peak = 0;
let last = 0;
const tick = () => {
  last = sample();
  peak = Math.max(peak, last);
};
let timer: NodeJS.Timeout | undefined;
const pause = () => {
  clearInterval(timer);
  timer = undefined;
};
process.on('message', (message: { type: string; root?: number }) => {
  if (message.type === 'reset') {
    if (typeof message.root === 'number') root = message.root;
    tick();
    peak = last;
    pause();
    timer = setInterval(tick, intervalMs);
    process.send!({ type: 'reset' });
  } else if (message.type === 'peak') {
    tick();
    pause();
    process.send!({ type: 'peak', peak, last });
  } else if (message.type === 'stop') {
    pause();
    process.disconnect();
  }
});
process.on('disconnect', pause);
process.send!({ type: 'ready' });
