/**
 * code_execution benchmark (`npm run bench:code-execution`).
 *
 * Inner calls per second through the whole path — script → host dispatch (refusal sites,
 * lifecycle to 4 observer processes granted observe + inputs with an input filter) → a no-op
 * built-in — next to the sandbox-only figure (the same script, the same runtime, a binding
  console.log(JSON.stringify({ engine: 'quickjs', jsInnerCallsPerSec, jsSandboxOnlyCallsPerSec, ratio: Number((jsInnerCallsPerSec / jsSandboxOnlyCallsPerSec).toFixed(3)), jsSessionExecMs, jsFreshExecMs, pyWarmExecMs, pyInnerCallsPerSec, droppedForObservers: dropped, ...approvals }));
 *
 * The last line is one JSON object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerCodeExecution } from '../src/code-execution/index.ts';
import { JsRuntime } from '../src/runtime/js/index.ts';
import { PythonRunner } from '../src/runtime/python/index.ts';
import { attachObservers, median, noopHost, settleObservers } from './rig.ts';
const JS_CALLS = 10_000;
const PY_CALLS = 5_000;
const ROUNDS = 5;

const jsScript = (n: number) => `for (let i = 0; i < ${n}; i++) await tools.noop({ i }); return ${n};`;
const pyScript = (n: number) => `for i in range(${n}):\n    await tools.noop({"i": i})\n${n}`;

const dir = mkdtempSync(join(tmpdir(), 'toolcell-bench-ce-'));
const host = noopHost();
try {
  const observers = await attachObservers(host, dir, 4);
  const codeExecution = registerCodeExecution(host, { engine: 'quickjs', maxTimeLimitMs: 120_000, maxCallsPerExecution: Infinity });
  const stream = host.openStream('bench');
  const inferenceId = stream.beginInference();
  const run = async (input: Record<string, unknown>) => {
    const t = performance.now();
    const { expectFresh: _expect, ...args } = input;
    const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: args });
    const ms = performance.now() - t;
    const summary = outcome.result.structuredContent as { ok: boolean; error?: unknown; session?: { fresh: boolean } } | undefined;
    if (!summary?.ok) throw new Error(`benchmark script failed: ${JSON.stringify(outcome.result).slice(0, 500)}`);
    if (input.expectFresh !== undefined && summary.session?.fresh !== input.expectFresh) {
      throw new Error(`expected session.fresh ${String(input.expectFresh)}, got ${JSON.stringify(summary.session)}`);
    }
    return ms;
  };
  /** Median of `n` runs of `input`, each checked for the session it ran in. */
  const medianOf = async (n: number, input: Record<string, unknown>, expectFresh: boolean) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) times.push(await run({ ...input, expectFresh }));
    return Number(median(times).toFixed(3));
  };

  // JavaScript through the whole path, and the same script in the sandbox alone (a binding that
  // answers at once), round by round in turn: a loaded machine's changes fall on both alike.
  const runtime = new JsRuntime({ engine: 'quickjs' });
  const direct = [{ name: 'noop', invoke: async () => 'ok' }];
  await run({ code: jsScript(500), time_limit_ms: 120_000 });
  await runtime.execute(jsScript(500), { tools: direct, conversation: 'bench' });
  const jsFull: number[] = [];
  const jsSandbox: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    jsFull.push(JS_CALLS / ((await run({ code: jsScript(JS_CALLS), time_limit_ms: 120_000 })) / 1000));
    // What pacing still holds for the observers goes out now, untimed, not during the next round.
    await settleObservers(host, observers);
    const t = performance.now();
    const result = await runtime.execute(jsScript(JS_CALLS), { tools: direct, timeoutMs: 120_000, conversation: 'bench' });
    if (!result.ok) throw new Error('sandbox-only run failed');
    jsSandbox.push(JS_CALLS / ((performance.now() - t) / 1000));
  }
  await runtime.close();

  // JavaScript `return 1` in a warm persistent session, and with a fresh session every run.
  await run({ code: 'kept = 1; return 1' });
  const jsSessionExecMs = await medianOf(200, { code: 'return kept' }, false);
  const jsFreshExecMs = await medianOf(200, { code: 'return 1', reset: true }, true);

  // Python: warm execution latency (in its persistent session) and inner calls.
  await run({ code: '1', language: 'python' });
  const pyWarmExecMs = await medianOf(200, { code: '1', language: 'python' }, false);
  await run({ code: pyScript(200), language: 'python', time_limit_ms: 120_000 });
  const pyCalls: number[] = [];
  for (let r = 0; r < ROUNDS; r++) pyCalls.push(PY_CALLS / ((await run({ code: pyScript(PY_CALLS), language: 'python', time_limit_ms: 120_000 })) / 1000));

  // Approvals. Call sites are captured only when a gate is configured: off vs on, alternating.
  const sites = { jsOff: [] as number[], jsOn: [] as number[], pyOff: [] as number[], pyOn: [] as number[] };
  const siteRuntime = new JsRuntime({ engine: 'quickjs' });
  const python = new PythonRunner();
  await siteRuntime.execute(jsScript(500), { tools: direct, conversation: 'sites' });
  await python.run(pyScript(200), { tools: direct, timeoutMs: 120_000 });
  for (let r = 0; r < ROUNDS * 2; r++) {
    const callSites = r % 2 === 1;
    let t = performance.now();
    const js = await siteRuntime.execute(jsScript(JS_CALLS), { tools: direct, timeoutMs: 120_000, conversation: 'sites', callSites });
    if (!js.ok) throw new Error('call-site run failed');
    (callSites ? sites.jsOn : sites.jsOff).push(JS_CALLS / ((performance.now() - t) / 1000));
    t = performance.now();
    const py = await python.run(pyScript(PY_CALLS), { tools: direct, timeoutMs: 120_000, callSites });
    if (!py.ok) throw new Error('call-site run failed (python)');
    (callSites ? sites.pyOn : sites.pyOff).push(PY_CALLS / ((performance.now() - t) / 1000));
  }
  await siteRuntime.close();
  await python.close();
  // A gated tool approved once up front: no call waits, each captures its site.
  const gated = noopHost({ approvalGate: { required: (c) => c.tool === 'noop', decide: async () => false, decideBatch: async () => true } });
  const gatedCe = registerCodeExecution(gated, { engine: 'quickjs', maxTimeLimitMs: 120_000, maxCallsPerExecution: Infinity });
  const gatedInference = gated.beginInference({ conversationId: 'bench-gated' });
  const gatedRun = async (code: string) => {
    const t = performance.now();
    const outcome = await gated.dispatch({ inferenceId: gatedInference, name: 'code_execution', input: { code, time_limit_ms: 120_000 } });
    if (!(outcome.result.structuredContent as { ok?: boolean } | undefined)?.ok) throw new Error(`gated run failed: ${JSON.stringify(outcome.result).slice(0, 300)}`);
    return performance.now() - t;
  };
  await gatedRun(jsScript(500));
  const jsGated: number[] = [];
  for (let r = 0; r < ROUNDS; r++) jsGated.push(JS_CALLS / ((await gatedRun(jsScript(JS_CALLS))) / 1000));
  await gatedCe.close();
  await gated.close();

  stream.end();
  await codeExecution.close();
  const jsInnerCallsPerSec = Math.round(median(jsFull));
  const jsSandboxOnlyCallsPerSec = Math.round(median(jsSandbox));
  const pyInnerCallsPerSec = Math.round(median(pyCalls));
  const dropped = [0, 1, 2, 3].reduce((n, i) => n + (host.server(`obs${i}`)?.queue.stats.droppedCalls ?? 0), 0);
  console.log(`JavaScript inner calls, whole path with 4 observers: ${jsInnerCallsPerSec.toLocaleString()} calls/s`);
  console.log(`JavaScript inner calls, sandbox only:                ${jsSandboxOnlyCallsPerSec.toLocaleString()} calls/s  ratio ${(jsInnerCallsPerSec / jsSandboxOnlyCallsPerSec).toFixed(2)} (target ≥ 0.50)`);
  console.log(`JavaScript return 1, warm persistent session:       ${jsSessionExecMs} ms median (target ≤ 2); fresh session each run ${jsFreshExecMs} ms (${(jsFreshExecMs / jsSessionExecMs).toFixed(2)}×)`);
  console.log(`Python 1, warm persistent session:                   ${pyWarmExecMs} ms median (target ≤ 2)`);
  console.log(`Python inner calls, whole path:                      ${pyInnerCallsPerSec.toLocaleString()} calls/s`);
  const approvals = {
    jsSitesOffCallsPerSec: Math.round(median(sites.jsOff)),
    jsSitesOnCallsPerSec: Math.round(median(sites.jsOn)),
    pySitesOffCallsPerSec: Math.round(median(sites.pyOff)),
    pySitesOnCallsPerSec: Math.round(median(sites.pyOn)),
    jsPreApprovedInnerCallsPerSec: Math.round(median(jsGated)),
  };
  console.log(`Call sites (sandbox only), JavaScript off / on:     ${approvals.jsSitesOffCallsPerSec.toLocaleString()} / ${approvals.jsSitesOnCallsPerSec.toLocaleString()} calls/s  on/off ${(approvals.jsSitesOnCallsPerSec / approvals.jsSitesOffCallsPerSec).toFixed(2)}`);
  console.log(`Call sites (runner only), Python off / on:          ${approvals.pySitesOffCallsPerSec.toLocaleString()} / ${approvals.pySitesOnCallsPerSec.toLocaleString()} calls/s  on/off ${(approvals.pySitesOnCallsPerSec / approvals.pySitesOffCallsPerSec).toFixed(2)}`);
  console.log(`JavaScript inner calls, gated tool approved up front (no observers): ${approvals.jsPreApprovedInnerCallsPerSec.toLocaleString()} calls/s`);
  console.log(`(calls dropped for observers above their rate budget: ${dropped.toLocaleString()})`);
  console.log(JSON.stringify({ engine: 'quickjs', jsInnerCallsPerSec, jsSandboxOnlyCallsPerSec, ratio: Number((jsInnerCallsPerSec / jsSandboxOnlyCallsPerSec).toFixed(3)), jsSessionExecMs, jsFreshExecMs, pyWarmExecMs, pyInnerCallsPerSec, droppedForObservers: dropped, ...approvals }));
} finally {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
}
