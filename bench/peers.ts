/**
 * Peer benchmark (`npm run bench:peers`): toolcell against pi-codemode, the AI SDK's code mode
 * (`@ai-sdk/code-mode`) and utcp code-mode (isolated-vm) on the same workloads, in one run.
 *
 * Subjects (bench/peers/subjects.ts) each live in a process of their own (subject-main.ts), a
 * bare `node` running toolcell's fresh build and the peers' packages as users run them, with no
 * TypeScript loader (bench/peers/built.ts); this process only orchestrates, so it times nothing
 * but the JSON floor. Workloads, rounds interleaved round-robin across subjects (the starting
 * subject rotates each round) so that drift on a shared machine hits all alike:
 * - cold first result: a fresh process per sample; the clock runs from the sandbox's start
 *   (`registerCodeExecution`, `new JsRuntime`, `new CodemodeSandbox`, ...) to the first result;
 * - warm `return 1`; 10,000 sequential no-op calls; 1,000 parallel; one 1 MB tool result
 *   (÷ the JSON floor: JSON.stringify + JSON.parse of the same object here, in the same run);
 *   a CPU-bound script;
 * - tree RSS after one run (at once, then its peak and where it settles over the next second) and
 *   at 32 conversations at once, sampled from a process of its own.
 * toolcell is measured through the sandbox alone (JsRuntime) and through the full host path
 * (ToolHost + code_execution), once more with 4 observer processes; after each of its runs, off
 * the clock, that subject has the host write what its pacing still holds and waits until every
 * observer has read it (peers/observers.ts), so the observers' trailing work lands on no other
 * subject's figure (their CPU is counted with the run's).
 *
 * The whole set runs twice: idle, then beside two busy-looping processes this bench starts and
 * stops. The last line is one JSON object: the headline ratios for toolcell's engine
 * (`BENCH_ENGINE`, default: the library's default), each the worse of the two runs, and every
 * per-run figure. `BENCH_ROUNDS` (default 3) and `BENCH_COLD` (cold samples, default 3) shorten
 * or lengthen a run; `BENCH_WARM` (default 2) sets the warm-up passes; `BENCH_RUNS=idle` or
 * `=loaded` runs one of the two. `BENCH_CPUS=0` (a `taskset` CPU list) holds every subject process,
 * and what it starts, to those CPUs, as a container given one CPU would (the busy loops stay
 * free). `BENCH_TRACE=1` prints
 * every measurement with the CPU the other subjects' processes spent meanwhile (to tell a
 * subject's own time from a neighbour's trailing work).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { startTreeSampler, type TreeSampler } from './proc.ts';
import { pidCpuMs, pidTreeCpuMs } from './tree-cpu.ts';
import { buildSubjects } from './peers/built.ts';
import { ensureIsolatedVm } from './peers/isolated-vm.ts';
import { benchEngine, SUBJECTS, type SubjectName } from './peers/subjects.ts';
import { megabyteObject, PAR_CALLS, SEQ_CALLS, type WorkloadName } from './peers/workloads.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COLD_SAMPLES = Number(process.env.BENCH_COLD ?? 3);
const RETURN1_PER_ROUND = 5;
/**
 * Passes of every workload through every subject before the measured rounds. One pass left
 * every subject still speeding up across the measured rounds (10,000 sequential calls, rounds
 * 1 → 3 of one run: pi 11.9k → 14.0k/s, utcp 15.1k → 19.8k/s, toolcell 21.3k → 43.7k/s: V8
 * tiers up the WebAssembly and JavaScript of each as it runs), so "warm" figures were the median
 * of a warm-up. Two passes: the same for every subject.
 */
const WARM_PASSES = Number(process.env.BENCH_WARM ?? 2);
const TRACE = process.env.BENCH_TRACE === '1';
/**
 * After the memory sample taken at once after one run, how long the same process is watched:
 * its peak meanwhile and its RSS at the end are printed beside it. toolcell's RSS rises for
 * 50–150 ms after its first run (V8 compiling QuickJS's hottest WebAssembly with its optimizing
 * tier) and then settles, so a sample at one instant lands on either side of that.
 */
const SETTLE_MS = 1_000;
/** CPUs the subject processes are held to (`taskset -c`), or undefined: any. */
const CPUS = process.env.BENCH_CPUS;
const RUNS = (process.env.BENCH_RUNS ?? 'idle,loaded').split(',') as ('idle' | 'loaded')[];
/** The longest a subject may stay silent: far above any workload's time at load 20. */
const STALL_MS = Number(process.env.BENCH_STALL_MS ?? 180_000);
/** The subject process's entry, plain JavaScript beside toolcell's fresh build (peers/built.ts). */
let MAIN = '';
/** Subjects whose memory is their own: the observed host's tree holds 4 observer processes. */
const RSS_SUBJECTS: SubjectName[] = ['toolcell', 'toolcell-host', 'pi-codemode', 'ai-sdk-code-mode', 'utcp-code-mode'];
const COLD_SUBJECTS: SubjectName[] = ['toolcell', 'toolcell-host', 'pi-codemode', 'ai-sdk-code-mode', 'utcp-code-mode'];

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, digits = 2): number => Number(x.toFixed(digits));
const load = () => round(loadavg()[0]!, 2);

/** A forked subject process and a way to wait for its next message of a type. */
class Child {
  readonly process: ChildProcess;
  private readonly inbox: Array<Record<string, unknown>> = [];
  private waiting: (() => void) | null = null;
  private exited = false;

  constructor(mode: 'serve' | 'cold' | 'rss', readonly subject: SubjectName) {
    // stdout ignored: utcp's client logs a line per tool call, which is its own cost to pay
    // but not ours to print. stderr stays visible.
    const stdio: ['ignore', 'ignore', 'inherit', 'ipc'] = ['ignore', 'ignore', 'inherit', 'ipc'];
    // taskset execs node in place: the pid, the IPC channel and the tree stay the subject's.
    this.process =
      CPUS === undefined ? fork(MAIN, [mode, subject], { execArgv: [], stdio }) : spawn('taskset', ['-c', CPUS, process.execPath, MAIN, mode, subject], { stdio });
    this.process.on('message', (m: Record<string, unknown>) => {
      this.inbox.push(m);
      this.waiting?.();
    });
    this.process.on('exit', () => {
      this.exited = true;
      this.waiting?.();
    });
  }

  /**
   * The next message; `absent` and `failed` come back as they are for the caller to judge. A
   * subject silent for `STALL_MS` is killed and named: a hung peer must not hang the bench.
   */
  async next(): Promise<Record<string, unknown>> {
    while (this.inbox.length === 0) {
      if (this.exited) throw new Error(`${this.subject} exited without answering`);
      let stalled = false;
      const timer = setTimeout(() => {
        stalled = true;
        this.process.kill('SIGKILL');
      }, STALL_MS);
      await new Promise<void>((resolve) => (this.waiting = resolve));
      clearTimeout(timer);
      this.waiting = null;
      if (stalled && this.inbox.length === 0) throw new Error(`${this.subject} gave no answer in ${STALL_MS / 1000} s and was killed`);
    }
    return this.inbox.shift()!;
  }

  async expect(type: string): Promise<Record<string, unknown>> {
    const m = await this.next();
    if (m.type === 'failed') throw new Error(`${this.subject}: ${String(m.message)}`);
    if (m.type !== type) throw new Error(`${this.subject}: expected ${type}, got ${JSON.stringify(m)}`);
    return m;
  }

  send(message: Record<string, unknown>): void {
    this.process.send(message);
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.process.once('exit', () => resolve()));
    // A child that has finished (cold mode) disconnects on its own: the race with this message
    // is expected, so its send error is taken by the callback rather than thrown as an event.
    if (this.process.connected) this.process.send({ type: 'close' }, () => {});
    // The child bounds its own close (subject-main.ts); this only catches one that cannot exit.
    const timer = setTimeout(() => this.process.kill('SIGKILL'), 30_000);
    await gone;
    clearTimeout(timer);
  }
}

/** Two busy loops in processes of their own, as the issue's loaded machine. */
function startBusyLoops(): ChildProcess[] {
  return [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

async function stopBusyLoops(loops: ChildProcess[]): Promise<void> {
  await Promise.all(
    loops.map(
      (loop) =>
        new Promise<void>((resolve) => {
          if (loop.exitCode !== null || loop.signalCode !== null) return resolve();
          loop.once('exit', () => resolve());
          loop.kill('SIGKILL');
        }),
    ),
  );
}

const big = megabyteObject();
const floorMs = (): number => {
  const t = performance.now();
  JSON.parse(JSON.stringify(big));
  return performance.now() - t;
};

interface RunFigures {
  run: 'idle' | 'loaded';
  loadBefore: number;
  loadAfter: number;
  payloadFloorMs: number;
  subjects: Record<string, Record<string, number>>;
}

async function measureRun(run: 'idle' | 'loaded', present: SubjectName[], sampler: TreeSampler): Promise<RunFigures> {
  const loops = run === 'loaded' ? startBusyLoops() : [];
  try {
    if (loops.length > 0) await new Promise((r) => setTimeout(r, 2000)); // let the loops reach the run queue
    const loadBefore = load();
    const samples = new Map<SubjectName, Map<WorkloadName, number[]>>(present.map((s) => [s, new Map()]));
    const push = (s: SubjectName, w: WorkloadName, ms: number) => {
      const m = samples.get(s)!;
      m.set(w, [...(m.get(w) ?? []), ms]);
    };

    // Warm figures: one long-lived process per subject, each warmed on every workload.
    const children = new Map<SubjectName, Child>();
    for (const s of present) {
      const child = new Child('serve', s);
      await child.expect('ready');
      children.set(s, child);
    }
    const othersCpu = (s: SubjectName) => {
      let ms = 0;
      for (const [o, c] of children) if (o !== s) ms += pidTreeCpuMs(c.process.pid!);
      return ms;
    };
    // Where the CPU of a sequential run goes: the subject's process (sandbox, host, dispatch)
    // and the processes below it (the observers; a sandbox process where there is one). What
    // is below is read again at the subject's next run, so that everything the observers did
    // for the run is counted with it: what the host's pacing still held is written and read
    // after the run's clock stops (the subject's settle), before the next subject runs.
    const seqCpu = new Map<SubjectName, { own: number[]; below: number[] }>(present.map((s) => [s, { own: [], below: [] }]));
    const belowOpen = new Map<SubjectName, { own: number; tree: number; ownAfter: number }>();
    let measuring = false;
    const runOne = async (s: SubjectName, w: WorkloadName) => {
      const child = children.get(s)!;
      const pid = child.process.pid!;
      const open = belowOpen.get(s);
      if (open) {
        belowOpen.delete(s);
        const tree = pidTreeCpuMs(pid);
        const cpu = seqCpu.get(s)!;
        cpu.own.push(open.ownAfter - open.own);
        cpu.below.push(Math.max(0, tree - open.tree - (pidCpuMs(pid) - open.own)));
      }
      const before = TRACE ? othersCpu(s) : 0;
      const start = measuring && w === 'seq' ? { own: pidCpuMs(pid), tree: pidTreeCpuMs(pid) } : undefined;
      child.send({ type: 'run', workload: w, conversation: 'bench' });
      const ms = Number((await child.expect('done')).ms);
      if (start) belowOpen.set(s, { ...start, ownAfter: pidCpuMs(pid) });
      if (TRACE) process.stderr.write(`  trace ${s} ${w} ${ms.toFixed(1)} ms; others spent ${(othersCpu(s) - before).toFixed(0)} ms CPU\n`);
      return ms;
    };
    const workloads: WorkloadName[] = ['return1', 'seq', 'par', 'payload', 'cpu'];
    for (let pass = 0; pass < WARM_PASSES; pass++) for (const s of present) for (const w of workloads) await runOne(s, w);
    const floors: number[] = [floorMs()];
    measuring = true;
    for (let r = 0; r < ROUNDS; r++) {
      const order = present.map((_, i) => present[(i + r) % present.length]!);
      for (const w of workloads) {
        if (w === 'payload') floors.push(floorMs());
        for (const s of order) {
          const times = w === 'return1' ? RETURN1_PER_ROUND : 1;
          for (let i = 0; i < times; i++) push(s, w, await runOne(s, w));
        }
      }
      process.stderr.write(`  ${run}: round ${r + 1}/${ROUNDS} done (load ${load()})\n`);
    }
    await Promise.all([...children.values()].map((c) => c.close()));

    // Cold first result: a fresh process per sample, subjects interleaved.
    const cold = new Map<SubjectName, number[]>();
    for (let i = 0; i < COLD_SAMPLES; i++) {
      for (const s of COLD_SUBJECTS.filter((c) => present.includes(c))) {
        process.stderr.write(`  ${run}: cold ${s} (${i + 1}/${COLD_SAMPLES})\n`);
        const child = new Child('cold', s);
        const ms = Number((await child.expect('cold')).ms);
        await child.close();
        cold.set(s, [...(cold.get(s) ?? []), ms]);
      }
    }

    // Tree RSS, sampled by the sampler process from the subject process's pid down.
    const rss = new Map<SubjectName, { one: number; onePeak: number; settled: number; burst: number }>();
    for (const s of RSS_SUBJECTS.filter((c) => present.includes(c))) {
      process.stderr.write(`  ${run}: memory ${s}\n`);
      const child = new Child('rss', s);
      await child.expect('one');
      await sampler.reset(child.process.pid!);
      const one = (await sampler.peak()).last;
      // Then the same process left alone for SETTLE_MS: its peak meanwhile, and where it settles.
      await sampler.reset(child.process.pid!);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const after = await sampler.peak();
      await sampler.reset(child.process.pid!);
      child.send({ type: 'go' });
      await child.expect('burst');
      const { peak } = await sampler.peak();
      await child.close();
      rss.set(s, { one, onePeak: Math.max(one, after.peak), settled: after.last, burst: Math.max(peak, one) });
    }
    const loadAfter = load();
    process.stderr.write(`  ${run}: cold and memory done (load ${loadAfter})\n`);

    const payloadFloorMs = round(median(floors), 3);
    const subjects: Record<string, Record<string, number>> = {};
    for (const s of present) {
      const m = samples.get(s)!;
      const f: Record<string, number> = {
        returnMs: round(median(m.get('return1')!), 3),
        seqCallsPerSec: Math.round(SEQ_CALLS / (median(m.get('seq')!) / 1000)),
        parCallsPerSec: Math.round(PAR_CALLS / (median(m.get('par')!) / 1000)),
        payloadMs: round(median(m.get('payload')!)),
        payloadVsFloor: round(median(m.get('payload')!) / payloadFloorMs),
        cpuMs: round(median(m.get('cpu')!)),
      };
      const cpu = seqCpu.get(s)!;
      if (cpu.own.length > 0) {
        f.seqOwnCpuUsPerCall = round((median(cpu.own) * 1000) / SEQ_CALLS, 1);
        f.seqBelowCpuUsPerCall = round((median(cpu.below) * 1000) / SEQ_CALLS, 1);
      }
      if (cold.has(s)) f.coldMs = round(median(cold.get(s)!), 1);
      if (rss.has(s)) {
        f.rssOneRunMb = round(rss.get(s)!.one / 2 ** 20, 1);
        f.rssOneRunPeakMb = round(rss.get(s)!.onePeak / 2 ** 20, 1);
        f.rssOneRunSettledMb = round(rss.get(s)!.settled / 2 ** 20, 1);
        f.rss32Mb = round(rss.get(s)!.burst / 2 ** 20, 1);
      }
      subjects[s] = f;
    }
    return { run, loadBefore, loadAfter, payloadFloorMs, subjects };
  } finally {
    await stopBusyLoops(loops);
  }
}

/** Which subjects load here: utcp code-mode needs isolated-vm's native module built. */
async function probe(): Promise<{ present: SubjectName[]; absent: Record<string, string> }> {
  const absent: Record<string, string> = {};
  const ivm = await ensureIsolatedVm();
  if (!ivm.ok) absent['utcp-code-mode'] = ivm.reason;
  const present: SubjectName[] = [];
  for (const s of SUBJECTS) {
    if (absent[s]) continue;
    const child = new Child('serve', s);
    const m = await child.next();
    if (m.type === 'ready') present.push(s);
    else absent[s] = String(m.reason ?? m.message ?? JSON.stringify(m));
    await child.close();
  }
  return { present, absent };
}

const engine = benchEngine();
process.stderr.write(`bench:peers — toolcell engine: ${engine}; load ${load()}${CPUS === undefined ? '' : `; subjects held to CPUs ${CPUS}`}\n`);
MAIN = buildSubjects();
const { present, absent } = await probe();
for (const [s, reason] of Object.entries(absent)) process.stderr.write(`  ${s} is absent from this run: ${reason}\n`);
const sampler = await startTreeSampler();
const runs: RunFigures[] = [];
try {
  for (const run of RUNS) runs.push(await measureRun(run, present, sampler));
} finally {
  sampler.close();
}

/** toolcell's ratio to a peer in one run, or undefined when either is absent. */
function ratios(r: RunFigures) {
  const t = r.subjects['toolcell'];
  const host = r.subjects['toolcell-host'];
  const observed = r.subjects['toolcell-host-4obs'];
  const pi = r.subjects['pi-codemode'];
  const utcp = r.subjects['utcp-code-mode'];
  const ai = r.subjects['ai-sdk-code-mode'];
  const q = (a: number | undefined, b: number | undefined, digits = 2) => (a === undefined || b === undefined ? undefined : round(a / b, digits));
  return {
    coldVsPi: q(host?.coldMs, pi?.coldMs),
    sandboxColdVsPi: q(t?.coldMs, pi?.coldMs),
    seqVsPi: q(t?.seqCallsPerSec, pi?.seqCallsPerSec),
    seqVsUtcp: q(t?.seqCallsPerSec, utcp?.seqCallsPerSec),
    seqVsAiSdk: q(t?.seqCallsPerSec, ai?.seqCallsPerSec),
    parVsPi: q(t?.parCallsPerSec, pi?.parCallsPerSec),
    returnVsPi: q(pi?.returnMs, t?.returnMs, 1),
    payloadVsFloor: t?.payloadVsFloor,
    cpuVsPi: q(pi?.cpuMs, t?.cpuMs),
    hostSeqVsPi: q(host?.seqCallsPerSec, pi?.seqCallsPerSec),
    hostSeqVsUtcp: q(host?.seqCallsPerSec, utcp?.seqCallsPerSec),
    observedHostVsSandbox: q(observed?.seqCallsPerSec, t?.seqCallsPerSec),
    hostPayloadVsFloor: host?.payloadVsFloor,
    rssMb: host?.rss32Mb,
    rssOneRunMb: host?.rssOneRunMb,
    rssOneRunPeakMb: host?.rssOneRunPeakMb,
    rssOneRunSettledMb: host?.rssOneRunSettledMb,
    sandboxRssMb: t?.rss32Mb,
  };
}
type Ratios = ReturnType<typeof ratios>;
/** For these, lower is better; for every other ratio, higher. */
const LOWER_IS_BETTER = new Set(['coldVsPi', 'sandboxColdVsPi', 'payloadVsFloor', 'hostPayloadVsFloor', 'rssMb', 'rssOneRunMb', 'rssOneRunPeakMb', 'rssOneRunSettledMb', 'sandboxRssMb']);
const perRun = runs.map((r) => ({ run: r.run, ratios: ratios(r) }));
const headline: Record<string, number | undefined> = {};
for (const key of Object.keys(perRun[0]!.ratios) as (keyof Ratios)[]) {
  const values = perRun.map((r) => r.ratios[key]).filter((v): v is number => v !== undefined);
  headline[key] = values.length === 0 ? undefined : LOWER_IS_BETTER.has(key) ? Math.max(...values) : Math.min(...values);
}

for (const r of runs) {
  console.log(`\n${r.run} run (load ${r.loadBefore} → ${r.loadAfter}; JSON floor for 1 MB ${r.payloadFloorMs} ms):`);
  console.log(`${'subject'.padEnd(20)} ${'cold ms'.padStart(8)} ${'return1 ms'.padStart(10)} ${'seq/s'.padStart(7)} ${'par/s'.padStart(7)} ${'1MB ×floor'.padStart(10)} ${'cpu ms'.padStart(7)} ${'RSS 1 (peak, settled)/32 MB'.padStart(28)}`);
  for (const [s, f] of Object.entries(r.subjects)) {
    const rssText = f.rss32Mb === undefined ? '—' : `${f.rssOneRunMb} (${f.rssOneRunPeakMb}, ${f.rssOneRunSettledMb})/${f.rss32Mb}`;
    console.log(
      `${s.padEnd(20)} ${String(f.coldMs ?? '—').padStart(8)} ${String(f.returnMs).padStart(10)} ${String(f.seqCallsPerSec).padStart(7)} ${String(f.parCallsPerSec).padStart(7)} ${String(f.payloadVsFloor).padStart(10)} ${String(f.cpuMs).padStart(7)} ${rssText.padStart(28)}`,
    );
  }
  const cpuParts = Object.entries(r.subjects)
    .filter(([, f]) => f.seqOwnCpuUsPerCall !== undefined)
    .map(([s, f]) => `${s} ${f.seqOwnCpuUsPerCall} + ${f.seqBelowCpuUsPerCall}`);
  console.log(`CPU per sequential call, µs (the subject's process + the processes below it, e.g. observers): ${cpuParts.join('; ')}`);
  const q = perRun.find((p) => p.run === r.run)!.ratios;
  console.log(
    `toolcell (${engine}): cold ${q.coldVsPi}× pi's time (target ≤ 1); sequential ${q.seqVsPi}× pi (target ≥ 2), ${q.seqVsUtcp ?? '—'}× utcp (target ≥ 1), ${q.seqVsAiSdk ?? '—'}× ai-sdk; ` +
      `parallel ${q.parVsPi}× pi; return 1 ${q.returnVsPi}× faster than pi (target ≥ 30); 1 MB ${q.payloadVsFloor}× the floor (target ≤ 2); ` +
      `host path with 4 observers ${q.observedHostVsSandbox}× the sandbox alone (target ≥ 0.5); tree RSS ${q.rssOneRunMb} MB after one run (target ≤ 100; ${q.rssOneRunPeakMb} at most and ${q.rssOneRunSettledMb} settled over the next ${SETTLE_MS / 1000} s), ${q.rssMb} MB at 32 conversations`,
  );
}
for (const [s, reason] of Object.entries(absent)) console.log(`absent: ${s} (${reason})`);
console.log(JSON.stringify({ engine, ...(CPUS === undefined ? {} : { cpus: CPUS }), headlineFrom: 'per figure, the worse of the idle and loaded runs', ...headline, absent, runs: runs.map((r) => ({ ...r, ratios: perRun.find((p) => p.run === r.run)!.ratios })) }));
