/**
 * Cost by number of tools (`npm run bench:tools`, issue 13): hosts with 10, 100 and 1,000
 * built-in tools (realistic schemas) plus `code_execution`, each measured in the same run:
 *
 * - `listTools()`: the first call (which builds the listing and code_execution's
 *   description) and the median of later calls (cached until the tools change; target at
 *   1,000 tools ≤ 5 ms);
 * - a warm `code_execution` of `return 1` in JavaScript through the whole path (target at
 *   1,000 tools within 1.2× of 10 tools), next to the same `return 1` in the JavaScript
 *   runtime alone given as many bindings — the part of a run that lives in the sandbox
 *   runtime (src/runtime/js), which receives and installs the tool list on every run;
 * - a warm Python `code_execution` of `1`, whose runner also receives the tool list per run.
 *
 * The last line is JSON.
 */
import pino from 'pino';
import { ToolHost } from '../src/host/tool-host.ts';
import { textResult } from '../src/host/results.ts';
import { registerCodeExecution } from '../src/code-execution/index.ts';
import { JsRuntime } from '../src/runtime/js/index.ts';
import { median } from './rig.ts';

const SIZES = [10, 100, 1000];
const RUNS = Number(process.env.TOOLS_BENCH_RUNS ?? 200);
const ROUNDS = 3;

function hostWith(count: number): ToolHost {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  for (let i = 0; i < count; i++) {
    host.registerTool({
      name: `srv${i % 10}_tool_${i}`,
      description: `Tool ${i}: reads, filters and summarizes records of a kind, with paging and a time window.`,
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Where to look' },
          limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'Most records returned' },
          mode: { type: 'string', enum: ['fast', 'full'], description: 'How thorough' },
          since: { type: 'string', format: 'date-time' },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['path'],
      },
      classes: ['files'],
      handler: async () => textResult('ok'),
    });
  }
  return host;
}

async function timeRuns(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 30; i++) await run();
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    for (let i = 0; i < RUNS; i++) await run();
    rounds.push((performance.now() - start) / RUNS);
  }
  return median(rounds);
}

const rows: { tools: number; descriptionKB: number; listFirstMs: number; listCachedMs: number; runMs: number; runtimeAloneMs: number; pythonMs: number }[] = [];
for (const count of SIZES) {
  const host = hostWith(count);
  const ce = registerCodeExecution(host, { languages: ['javascript', 'python'], python: { idleTimeoutMs: 600_000 } });
  let start = performance.now();
  host.listTools();
  const listFirstMs = performance.now() - start;
  const cached: number[] = [];
  for (let i = 0; i < 50; i++) {
    start = performance.now();
    host.listTools();
    cached.push(performance.now() - start);
  }
  const inferenceId = host.beginInference({ conversationId: 'bench' });
  const runMs = await timeRuns(async () => {
    const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'return 1' } });
    if (outcome.status !== 'completed' || outcome.result.isError) throw new Error(`run failed: ${JSON.stringify(outcome.result)}`);
  });
  const pythonMs = await timeRuns(async () => {
    const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: '1', language: 'python' } });
    if (outcome.status !== 'completed' || outcome.result.isError) throw new Error(`run failed: ${JSON.stringify(outcome.result)}`);
  });
  const descriptionKB = ce.describe().length / 1024;
  await ce.close();
  await host.close();

  const runtime = new JsRuntime();
  const bindings = Array.from({ length: count }, (_, i) => ({ name: `srv${i % 10}_tool_${i}`, invoke: async () => 'ok' }));
  const runtimeAloneMs = await timeRuns(() => runtime.execute('return 1', { tools: bindings }));
  await runtime.close();
  rows.push({ tools: count, descriptionKB: Number(descriptionKB.toFixed(1)), listFirstMs: Number(listFirstMs.toFixed(2)), listCachedMs: Number(median(cached).toFixed(4)), runMs: Number(runMs.toFixed(3)), runtimeAloneMs: Number(runtimeAloneMs.toFixed(3)), pythonMs: Number(pythonMs.toFixed(3)) });
}

const first = rows[0]!;
const last = rows[rows.length - 1]!;
console.log(`listTools() first and cached (median of 50); warm code_execution \`return 1\` (JavaScript, median of ${ROUNDS} rounds of ${RUNS})`);
console.log('tools   description   listTools first   listTools cached   warm return 1 (whole path)   same in the JS runtime alone   warm Python `1`');
for (const r of rows) {
  console.log(
    `${String(r.tools).padStart(5)} ${`${r.descriptionKB} KB`.padStart(13)} ${`${r.listFirstMs.toFixed(2)} ms`.padStart(17)} ${`${r.listCachedMs.toFixed(4)} ms`.padStart(18)} ${`${r.runMs.toFixed(3)} ms (${(r.runMs / first.runMs).toFixed(2)}×)`.padStart(28)} ${`${r.runtimeAloneMs.toFixed(3)} ms (${(r.runtimeAloneMs / first.runtimeAloneMs).toFixed(2)}×)`.padStart(30)} ${`${r.pythonMs.toFixed(3)} ms (${(r.pythonMs / first.pythonMs).toFixed(2)}×)`.padStart(18)}`,
  );
}
const listOk = last.listCachedMs <= 5;
const runRatio = last.runMs / first.runMs;
console.log(`listTools() at ${last.tools} tools after the first: ${last.listCachedMs.toFixed(4)} ms (target ≤ 5 ms: ${listOk ? 'met' : 'NOT met'})`);
console.log(`warm return 1 at ${last.tools} tools: ${runRatio.toFixed(2)}× of ${first.tools} tools (target ≤ 1.2×: ${runRatio <= 1.2 ? 'met' : 'NOT met'})`);
console.log(JSON.stringify({ runs: RUNS, rounds: ROUNDS, rows, listCachedTargetMet: listOk, runRatio: Number(runRatio.toFixed(3)), runRatioTargetMet: runRatio <= 1.2 }));
