/**
 * Peer benchmark (`npm run bench:peers`): toolcell beside pi-codemode, the AI SDK's code mode
 * (`@ai-sdk/code-mode`) and utcp code-mode (isolated-vm) on the same workloads, in one run, with
 * issue 46's targets checked (figures.ts): toolcell's public path (`ToolHost` + `code_execution`,
 * subject `toolcell-host`) against both pi-codemode and utcp code-mode on every figure.
 *
 * Each subject lives in a process of its own (peers/subject-main.ts), a bare `node` running
 * toolcell's fresh build and the peers' packages as users run them (peers/built.ts); every time
 * is taken in that process, around the subject's own call. Figures (peers/run.ts runs them):
 * - cold: a fresh process per sample; process start → first `return 1` result, node's start,
 *   every import and the embedder's setup (host, tools, sandbox) included; import alone beside it;
 * - `return 1` in a kept conversation (the same one every time, after every other workload ran
 *   in it) and in a new conversation (a new one each time, ended after);
 * - 10,000 sequential no-op calls; 1,000 parallel; a CPU-bound loop (no target: an interpreter
 *   against V8's JIT);
 * - 1 MB: the tool answers the megabyte as JSON text, the sandbox's side parses it, the script
 *   returns all of it, and the value is checked whole-ish (count and last item). The floor
 *   beside it is `JSON.stringify(JSON.parse(text))` of the same text: the least any sandbox must
 *   do (parse the tool's answer once, serialize the result once), the median of 15 samples per
 *   subject process per round, taken in the processes that measure the 1 MB;
 * - 32 conversations at once, each a new conversation running a 100-call script: aggregate calls/s;
 * - tree RSS (the subject's process and everything below it: workers, sandbox processes,
 *   observers), sampled by bench/rss-sampler.ts from a process of its own: settled 1 s after one
 *   100-call run, and settled 1 s after 32 conversations ran at once (kept open), with its peak.
 * Observers: `toolcell-host-4obs` has 4 observer processes that receive every event (a drop
 * fails the run; each run ends when they have read all of it, on the clock), written without the
 * MCP SDK (fixtures/lean-observer.mjs); `toolcell-host-4obs-sdk` the same on the SDK
 * (fixtures/peer.mjs), whose own validation CPU shows in its "seq CPU" column;
 * `toolcell-host-4obs-default` has the SDK ones under the default budget and reports what they dropped.
 * `toolcell` is the sandbox alone (`JsRuntime`), shown for reference, with no target.
 *
 * The whole set runs twice: idle, then beside two busy-looping processes this bench starts and
 * stops. Every figure is the median of the worse half of its samples; each target's verdict
 * takes the worse of the two runs. The output prints pass/FAIL per target; the last line is one
 * JSON object. A peer that cannot load (utcp without isolated-vm's native build) is reported as
 * MISSING and its targets fail: nothing is skipped quietly.
 *
 * `BENCH_ENGINE=default|quickjs|quickjs-threads|v8` picks toolcell's engine; `BENCH_ROUNDS` (4),
 * `BENCH_COLD` (4 cold samples), `BENCH_WARM` (2 warm-up passes), `BENCH_RUNS=idle|loaded`
 * shorten a run; `BENCH_CPUS=0` holds every subject process to those CPUs (`taskset`);
 * `BENCH_SUBJECTS=a,b` runs only those subjects; `BENCH_TRACE=1` prints every measurement.
 */
import { startTreeSampler } from './proc.ts';
import { buildSubjects } from './peers/built.ts';
import { CPUS } from './peers/child.ts';
import { probe } from './peers/probe.ts';
import { runFigures, verdicts, type RunFigures } from './peers/figures.ts';
import { load, measureRun } from './peers/run.ts';
import { printRun, printVerdicts } from './peers/report.ts';
import { benchEngine, type SubjectName } from './peers/subjects.ts';

const RUNS = (process.env.BENCH_RUNS ?? 'idle,loaded').split(',') as ('idle' | 'loaded')[];
/** Subjects whose cold start and memory are measured: the observed hosts' differ by their observers only. */
const COLD_AND_RSS: SubjectName[] = ['toolcell', 'toolcell-host', 'pi-codemode', 'ai-sdk-code-mode', 'utcp-code-mode'];

const engine = benchEngine();
process.stderr.write(`bench:peers — toolcell engine: ${engine}; load ${load()}${CPUS === undefined ? '' : `; subjects held to CPUs ${CPUS}`}\n`);
const main = buildSubjects();
const { present, absent } = await probe(main);
for (const [s, reason] of Object.entries(absent)) process.stderr.write(`  MISSING: ${s} is absent from this run: ${reason}\n`);
const sampler = await startTreeSampler();
const runs: RunFigures[] = [];
try {
  const measured = COLD_AND_RSS.filter((s) => present.includes(s));
  for (const run of RUNS) {
    runs.push(runFigures(await measureRun(run, { main, present, cold: measured, rss: measured, sampler })));
    printRun(runs[runs.length - 1]!); // as soon as it is known: a later run that fails loses nothing
  }
} finally {
  sampler.close();
}

const verdict = verdicts(runs);
printVerdicts(verdict, RUNS);
for (const [s, reason] of Object.entries(absent)) console.log(`MISSING: ${s} (${reason}) — its targets fail`);
console.log(
  JSON.stringify({
    engine,
    ...(CPUS === undefined ? {} : { cpus: CPUS }),
    figures: 'median of the worse half of samples; verdict: the worse run',
    passed: verdict.filter((v) => v.pass).length,
    failed: verdict.filter((v) => !v.pass).map((v) => v.target),
    absent,
    targets: verdict,
    runs,
  }),
);
