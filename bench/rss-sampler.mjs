/**
 * Out-of-process RSS sampler for the benchmarks: forked by proc.ts's `startTreeSampler()`, it
 * walks /proc every `intervalMs` for the tree of the process that forked it (itself left out)
 * and keeps the peak RSS between a `reset` and a `peak` message. It runs in its own process so
 * that the walk (40–700 ms on a loaded machine) costs the measured process nothing: sampling
 * inside it, as bench:scale once did, made its throughput figures measure the sampler.
 * Plain JavaScript with no imports beyond node:, so its own start is quick.
 */
import { readdirSync, readFileSync } from 'node:fs';

const root = process.ppid;
const intervalMs = Number(process.argv[2] ?? 25);

function tree() {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // The process ended while we looked: it has no RSS left to count.
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const child of children.get(out[i]) ?? []) if (child !== process.pid) out.push(child);
  return out;
}

function rss(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0; // ended between the walk and the read
  }
}

const sample = () => tree().reduce((sum, pid) => sum + rss(pid), 0);
let peak = 0;
let last = 0;
const tick = () => {
  last = sample();
  peak = Math.max(peak, last);
};
const timer = setInterval(tick, intervalMs);
process.on('message', (message) => {
  if (message === 'reset') {
    tick();
    peak = last;
    process.send({ type: 'reset' });
  } else if (message === 'peak') {
    tick();
    process.send({ type: 'peak', peak, last });
  } else if (message === 'stop') {
    clearInterval(timer);
    process.disconnect();
  }
});
process.on('disconnect', () => clearInterval(timer));
process.send({ type: 'ready' });
