/**
 * bench:peers' figures and targets, made from a run's raw samples (run.ts).
 *
 * Every figure is the median of the worse half of its samples (for a time or a size, the larger
 * half; a rate is calls ÷ that time), so a figure says what the slower half of rounds got, not
 * the best. The JSON floor of the 1 MB case is the plain median of its samples (a floor is what
 * the machine can do). A target compares toolcell's public path (`toolcell-host`) with a peer
 * in the same run; the headline of a target is the worse of the idle and loaded runs.
 */
import type { SubjectName } from './subjects.ts';
import { CONVERSATION_CALLS, CONVERSATIONS, PAR_CALLS, SEQ_CALLS } from './workloads.ts';
import type { RunSamples, SubjectSamples } from './run.ts';

const OBSERVERS = 4;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The median of the larger half of `xs` (the worse half of a time, a size or a drop count). */
export function worseHalf(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return median(s.slice(Math.floor(s.length / 2)));
}

const r = (x: number | undefined, digits = 1) => (x === undefined || !Number.isFinite(x) ? undefined : Number(x.toFixed(digits)));
const rate = (calls: number, ms: number | undefined) => (ms === undefined ? undefined : Math.round(calls / (ms / 1000)));
const mb = (bytes: number | undefined) => r(bytes === undefined ? undefined : bytes / 2 ** 20);

/** One subject's figures in one run. */
export function subjectFigures(s: SubjectSamples, floorMs: number) {
  const w = (m: keyof SubjectSamples['warm']) => worseHalf(s.warm[m] ?? []);
  const payloadMs = w('payload');
  return {
    coldMs: r(worseHalf(s.coldFirstMs)),
    importMs: r(worseHalf(s.coldImportedMs)),
    return1KeptMs: r(w('return1Kept'), 3),
    return1NewMs: r(w('return1New'), 3),
    seqPerSec: rate(SEQ_CALLS, w('seq')),
    parPerSec: rate(PAR_CALLS, w('par')),
    payloadMs: r(payloadMs, 2),
    payloadVsFloor: r(payloadMs === undefined ? undefined : payloadMs / floorMs, 2),
    cpuMs: r(w('cpu')),
    conc32PerSec: rate(CONVERSATIONS * CONVERSATION_CALLS, w('conc32')),
    rssOneMb: mb(worseHalf(s.rssOne)),
    rss32Mb: mb(worseHalf(s.rss32)),
    rss32PeakMb: mb(worseHalf(s.rss32Peak)),
    seqOwnCpuUsPerCall: r(((worseHalf(s.seqOwnCpuMs) ?? NaN) * 1000) / SEQ_CALLS),
    seqBelowCpuUsPerCall: r(((worseHalf(s.seqBelowCpuMs) ?? NaN) * 1000) / SEQ_CALLS),
    droppedPct: r(((worseHalf(s.seqDropped) ?? NaN) * 100) / (SEQ_CALLS * OBSERVERS)),
  };
}
export type Figures = ReturnType<typeof subjectFigures>;

export interface RunFigures {
  run: 'idle' | 'loaded';
  loadBefore: number;
  loadAfter: number;
  floorMs: number;
  subjects: Partial<Record<SubjectName, Figures>>;
}

export function runFigures(samples: RunSamples): RunFigures {
  const floorMs = median(samples.floorMs);
  const subjects: Partial<Record<SubjectName, Figures>> = {};
  for (const [name, s] of Object.entries(samples.subjects)) subjects[name as SubjectName] = subjectFigures(s, floorMs);
  return { run: samples.run, loadBefore: samples.loadBefore, loadAfter: samples.loadAfter, floorMs: r(floorMs, 2)!, subjects };
}

/** A target: `subject`'s `figure` ÷ `against`'s (or the floor's) must be `op` `bound`. */
export interface Target {
  figure: keyof Figures;
  subject: SubjectName;
  against: SubjectName | 'floor';
  op: '<=' | '>=';
  bound: number;
}

const HOST: SubjectName = 'toolcell-host';
const both = (figure: keyof Figures, op: '<=' | '>=', pi: number, utcp: number): Target[] => [
  { figure, subject: HOST, against: 'pi-codemode', op, bound: pi },
  { figure, subject: HOST, against: 'utcp-code-mode', op, bound: utcp },
];

/** Issue 46's acceptance, each figure against both pi-codemode and utcp code-mode. */
export const TARGETS: Target[] = [
  ...both('seqPerSec', '>=', 2, 1.5),
  ...both('parPerSec', '>=', 2, 1.5),
  ...both('coldMs', '<=', 1, 1),
  ...both('return1NewMs', '<=', 1, 1),
  ...both('return1KeptMs', '<=', 1, 1),
  ...both('payloadMs', '<=', 1, 1),
  { figure: 'payloadMs', subject: HOST, against: 'floor', op: '<=', bound: 2 },
  ...both('conc32PerSec', '>=', 1, 1),
  ...both('rssOneMb', '<=', 1, 1),
  ...both('rss32Mb', '<=', 1, 1),
  { figure: 'seqPerSec', subject: 'toolcell-host-4obs', against: HOST, op: '>=', bound: 0.5 },
];

export const targetName = (t: Target) => `${t.subject} ${t.figure} ÷ ${t.against} ${t.op} ${t.bound}`;

/** The target's ratio in one run, or undefined when a subject is absent from it. */
export function ratio(t: Target, run: RunFigures): number | undefined {
  const mine = run.subjects[t.subject]?.[t.figure];
  const theirs = t.against === 'floor' ? run.floorMs : run.subjects[t.against]?.[t.figure];
  if (mine === undefined || theirs === undefined || theirs === 0) return undefined;
  return Number((mine / theirs).toFixed(2));
}

export interface Verdict {
  target: string;
  perRun: Record<string, number | undefined>;
  /** The worse of the runs; undefined when a subject was missing (then the target fails). */
  worse: number | undefined;
  pass: boolean;
}

export function verdicts(runs: RunFigures[]): Verdict[] {
  return TARGETS.map((t) => {
    const perRun: Record<string, number | undefined> = {};
    for (const run of runs) perRun[run.run] = ratio(t, run);
    const values = Object.values(perRun);
    const worse = values.some((v) => v === undefined) ? undefined : t.op === '<=' ? Math.max(...(values as number[])) : Math.min(...(values as number[]));
    const pass = worse !== undefined && (t.op === '<=' ? worse <= t.bound : worse >= t.bound);
    return { target: targetName(t), perRun, worse, pass };
  });
}
