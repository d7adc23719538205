// One subject of bench:handoff (bench/handoff-floor.ts): toolcell's sandbox alone (`JsRuntime`,
// the default engine) running a script of sequential no-op tool calls (bench:peers' workload,
// handed over by the orchestrator), from the fresh build in dist/.
//
//   argv: <script> <the value it returns> <calls it makes> <passes>
//   prints one JSON line: { rates: [calls/s of each pass after one warm-up pass] }
const [script, expected, calls, passes] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
const { JsRuntime } = await import(new URL('../../dist/runtime/js/index.js', import.meta.url).href);
const runtime = new JsRuntime({ limits: { maxCalls: 1_000_000, maxInFlight: 10_000, timeoutMs: 600_000 } });
const tools = [{ name: 'noop', invoke: async () => ({ ok: true }) }];
const pass = async () => {
  const started = performance.now();
  const result = await runtime.execute(script, { tools, conversation: 'c', timeoutMs: 600_000 });
  if (!result.ok || result.value !== expected) throw new Error(`the run failed: ${JSON.stringify(result).slice(0, 300)}`);
  return Math.round(calls / ((performance.now() - started) / 1000));
};
await pass();
const rates = [];
for (let i = 0; i < passes; i++) rates.push(await pass());
console.log(JSON.stringify({ rates }));
await runtime.close();
