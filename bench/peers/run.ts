/**
 * One bench:peers run (idle, or beside two busy loops): every subject's samples of every
 * measure, raw. The figures and targets are made from them in figures.ts.
 *
 * Warm measures: one long-lived process per subject, warmed on every measure first, then
 * `ROUNDS` rounds; in each round every measure goes to every subject in turn (interleaved), the
 * first subject and the order of the measures rotating from round to round, so that no subject
 * keeps a warm fast path the others do not get and drift on a shared machine hits all alike.
 * Between rounds each subject process takes floor samples (the JSON floor of the 1 MB case,
 * measured where the 1 MB is measured). Then cold samples (a fresh process each, subjects
 * interleaved) and tree RSS (a fresh process each, sampled by the sampler process).
 */
import { loadavg } from 'node:os';
import type { TreeSampler } from '../proc.ts';
import { pidCpuMs, pidTreeCpuMs } from '../tree-cpu.ts';
import { Child, startBusyLoops, stopBusyLoops } from './child.ts';
import type { SubjectName } from './subjects.ts';
import type { WorkloadName } from './workloads.ts';

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const COLD_SAMPLES = Number(process.env.BENCH_COLD ?? 4);
/**
 * Passes of every measure through every subject before the measured rounds: V8 tiers up each
 * subject's WebAssembly and JavaScript as it runs (one pass left every subject still speeding
 * up across the rounds), so without them "warm" figures would be the median of a warm-up.
 */
const WARM_PASSES = Number(process.env.BENCH_WARM ?? 2);
const RETURN1_PER_ROUND = 5;
/** How long a process is left alone before its RSS is read as "settled". */
export const SETTLE_MS = 1_000;
const TRACE = process.env.BENCH_TRACE === '1';

/** What bench:peers measures in a warm process; each sample is a time in ms. */
export const MEASURES = ['return1Kept', 'return1New', 'seq', 'par', 'payload', 'cpu', 'conc32'] as const;
export type Measure = (typeof MEASURES)[number];

/** Samples of one subject in one run. Times in ms, memory in bytes, CPU in ms per run. */
export interface SubjectSamples {
  warm: Partial<Record<Measure, number[]>>;
  /** Per seq run: the subject process's CPU, and its children's (observers, sandbox processes). */
  seqOwnCpuMs: number[];
  seqBelowCpuMs: number[];
  /** Per seq run: calls the observers dropped, summed over the 4 observers. */
  seqDropped: number[];
  coldFirstMs: number[];
  coldImportedMs: number[];
  rssOne: number[];
  rss32Peak: number[];
  rss32: number[];
}

export interface RunSamples {
  run: 'idle' | 'loaded';
  loadBefore: number;
  loadAfter: number;
  floorMs: number[];
  subjects: Partial<Record<SubjectName, SubjectSamples>>;
}

export const load = () => Number(loadavg()[0]!.toFixed(2));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function emptySamples(): SubjectSamples {
  return { warm: {}, seqOwnCpuMs: [], seqBelowCpuMs: [], seqDropped: [], coldFirstMs: [], coldImportedMs: [], rssOne: [], rss32Peak: [], rss32: [] };
}

/** The request a measure sends; `n` numbers the new conversations. */
function request(measure: Measure, n: string): Record<string, unknown> {
  switch (measure) {
    case 'return1Kept':
      return { type: 'run', workload: 'return1', conversation: 'bench' };
    case 'return1New':
      return { type: 'run', workload: 'return1', conversation: `new-${n}`, once: true };
    case 'conc32':
      return { type: 'burst', id: `burst-${n}` };
    default:
      return { type: 'run', workload: measure satisfies WorkloadName, conversation: 'bench' };
  }
}

export interface RunOptions {
  main: string;
  present: SubjectName[];
  cold: SubjectName[];
  rss: SubjectName[];
  sampler: TreeSampler;
}

export async function measureRun(run: 'idle' | 'loaded', o: RunOptions): Promise<RunSamples> {
  const loops = run === 'loaded' ? startBusyLoops() : [];
  try {
    if (loops.length > 0) await sleep(2000); // let the loops reach the run queue
    const loadBefore = load();
    const subjects: Partial<Record<SubjectName, SubjectSamples>> = {};
    for (const s of o.present) subjects[s] = emptySamples();
    const floorMs: number[] = [];
    await warmRounds(run, o, subjects, floorMs);
    await coldSamples(run, o, subjects);
    await rssSamples(run, o, subjects);
    const loadAfter = load();
    process.stderr.write(`  ${run}: done (load ${loadAfter})\n`);
    return { run, loadBefore, loadAfter, floorMs, subjects };
  } finally {
    await stopBusyLoops(loops);
  }
}

async function warmRounds(run: string, o: RunOptions, subjects: Partial<Record<SubjectName, SubjectSamples>>, floorMs: number[]): Promise<void> {
  const children = new Map<SubjectName, Child>();
  try {
    for (const s of o.present) {
      const child = new Child(o.main, 'serve', s);
      children.set(s, child);
      await child.expect('ready');
    }
    let counter = 0;
    const once = async (s: SubjectName, m: Measure, record: boolean) => {
      const child = children.get(s)!;
      const pid = child.process.pid!;
      const own = pidCpuMs(pid);
      const tree = pidTreeCpuMs(pid);
      child.send(request(m, String(counter++)));
      const done = await child.expect('done');
      const ms = Number(done.ms);
      if (!record) return;
      const samples = subjects[s]!;
      (samples.warm[m] ??= []).push(ms);
      if (m === 'seq') {
        const ownMs = pidCpuMs(pid) - own;
        samples.seqOwnCpuMs.push(ownMs);
        samples.seqBelowCpuMs.push(Math.max(0, pidTreeCpuMs(pid) - tree - ownMs));
        samples.seqDropped.push(Number(done.dropped ?? 0));
      }
      if (TRACE) process.stderr.write(`  trace ${s} ${m} ${ms.toFixed(1)} ms\n`);
    };
    for (let pass = 0; pass < WARM_PASSES; pass++) for (const s of o.present) for (const m of MEASURES) await once(s, m, false);
    for (let r = 0; r < ROUNDS; r++) {
      const order = o.present.map((_, i) => o.present[(i + r) % o.present.length]!);
      const measures = MEASURES.map((_, i) => MEASURES[(i + r) % MEASURES.length]!);
      for (const m of measures) {
        const times = m === 'return1Kept' || m === 'return1New' ? RETURN1_PER_ROUND : 1;
        for (const s of order) for (let i = 0; i < times; i++) await once(s, m, true);
      }
      for (const s of order) {
        const child = children.get(s)!;
        child.send({ type: 'floor' });
        floorMs.push(...((await child.expect('floor')).samples as number[]));
      }
      process.stderr.write(`  ${run}: round ${r + 1}/${ROUNDS} done (load ${load()})\n`);
    }
  } finally {
    await Promise.all([...children.values()].map((c) => c.close()));
  }
}

async function coldSamples(run: string, o: RunOptions, subjects: Partial<Record<SubjectName, SubjectSamples>>): Promise<void> {
  for (let i = 0; i < COLD_SAMPLES; i++) {
    // Rotated like the rounds: no subject always follows the same one.
    const order = o.cold.map((_, k) => o.cold[(k + i) % o.cold.length]!);
    for (const s of order) {
      process.stderr.write(`  ${run}: cold ${s} (${i + 1}/${COLD_SAMPLES})\n`);
      const child = new Child(o.main, 'cold', s);
      const m = await child.expect('cold');
      await child.close();
      subjects[s]!.coldFirstMs.push(Number(m.firstMs));
      subjects[s]!.coldImportedMs.push(Number(m.importedMs));
    }
  }
}

async function rssSamples(run: string, o: RunOptions, subjects: Partial<Record<SubjectName, SubjectSamples>>): Promise<void> {
  for (const s of o.rss) {
    process.stderr.write(`  ${run}: memory ${s}\n`);
    const child = new Child(o.main, 'rss', s);
    try {
      await child.expect('one');
      // After one run, left alone for SETTLE_MS: where its tree settles.
      await sleep(SETTLE_MS);
      await o.sampler.reset(child.process.pid!);
      subjects[s]!.rssOne.push((await o.sampler.peak()).last);
      await o.sampler.reset(child.process.pid!);
      child.send({ type: 'go' });
      await child.expect('burst');
      subjects[s]!.rss32Peak.push((await o.sampler.peak()).peak);
      // The 32 conversations stay open (kept sessions, where the subject keeps any): where the tree settles.
      await sleep(SETTLE_MS);
      await o.sampler.reset(child.process.pid!);
      subjects[s]!.rss32.push((await o.sampler.peak()).last);
    } finally {
      await child.close();
    }
  }
}
