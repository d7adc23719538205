/**
 * Script normalization benchmark (`npm run bench:scripts`): what code_execution's rewriting of
 * model-written scripts (fence, TypeScript, lone function, export default, final expression)
 * costs, measured against the same runs without it, in one process.
 *
 * - The TypeScript transformer's one-time load (amaro, loaded by the first TypeScript script).
 * - normalizeScript alone: `return 1` as JavaScript and as TypeScript; a 200-line TypeScript
 *   script (interfaces, generics, `as`, `!`, `satisfies`, optional parameters) and the same
 *   script without its types as JavaScript.
 * - Runs in a warm QuickJS session (JsRuntime, the sandbox alone, so the relative cost is the
 *   largest it can be: code_execution's own dispatch path only adds fixed time) of `return 1`,
 *   a 25-line and a 200-line plain JavaScript script: as written, with the normalization of
 *   the previous round (fence + acorn for a lone function, which already parsed every script)
 *   and with this round's, rotated; target within 5% of the previous round. The time each
 *   normalization took inside those runs is printed too: it is the honest figure on a loaded
 *   machine, where end-to-end medians move by more than the whole normalization. And `return 1`
 *   as TypeScript against the same in JavaScript.
 *
 * The last line is one JSON object.
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { normalizeScript } from '../src/code-execution/normalize.ts';
import { stripTypeScript, typeScriptLoaded } from '../src/runtime/js/normalize/typescript.ts';
import { stripFence } from '../src/runtime/js/normalize/fence.ts';
import { callLoneFunction } from '../src/runtime/js/normalize/lone-function.ts';
import { JsRuntime } from '../src/runtime/js/index.ts';
import { median } from './rig.ts';

/** A ~200-line model-style TypeScript script that makes no call (so a run measures the script, not tools). */
function typeScript200(): string {
  const out = ['interface User { id: number; name: string; email?: string }', 'type Page<T> = { items: T[]; next?: string };'];
  let i = 0;
  while (out.length < 197) {
    i++;
    out.push(
      `function page${i}<T extends object>(items: T[], label?: string): Page<T> {`,
      `  const first: T | undefined = items[0]!;`,
      `  const cfg = { size: ${i}, label: label ?? 'p' } satisfies { size: number; label: string };`,
      `  if (first === undefined) return { items: [] } as Page<T>;`,
      `  return { items: items.slice(0, cfg.size) } as Page<T>;`,
      `}`,
      `const r${i}: Page<User> = page${i}<User>([{ id: ${i}, name: 'u${i}' }]);`,
    );
  }
  out.push('const all: User[] = [r1, r2].flatMap((p: Page<User>) => p.items);', 'return all.map((u) => u.name as string);');
  return out.join('\n');
}

const timeOf = (fn: () => unknown, n: number): number => {
  const times: number[] = [];
  for (let k = 0; k < n; k++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  return median(times);
};

/** A typical model script: a few calls' worth of logic, 25 lines, no TypeScript. */
const JS_TYPICAL = [
  'const users = [];',
  'for (let i = 0; i < 20; i++) users.push({ id: i, name: `user${i}`, active: i % 3 !== 0, tags: i % 2 ? ["a"] : [] });',
  'const active = users.filter((u) => u.active);',
  'const byTag = {};',
  'for (const u of active) {',
  '  for (const tag of u.tags) {',
  '    byTag[tag] = (byTag[tag] ?? 0) + 1;',
  '  }',
  '}',
  'const summary = active.map((u) => ({',
  '  id: u.id,',
  '  label: u.name.toUpperCase(),',
  '}));',
  '// keep the first ten',
  'const firstTen = summary.slice(0, 10);',
  'let total = 0;',
  'for (const s of firstTen) {',
  '  total += s.id;',
  '}',
  'const result = {',
  '  count: active.length,',
  '  total,',
  '  byTag,',
  '};',
  'return result;',
].join('\n');

const ts200 = typeScript200();
const JS_RETURN = 'return 1';
const TS_RETURN = 'const one: number = 1;\nreturn one;';
const load0 = loadavg()[0]!;

// The transformer's one-time load, paid by the first TypeScript script of the process.
if (typeScriptLoaded()) throw new Error('amaro loaded before any TypeScript script');
for (let k = 0; k < 200; k++) normalizeScript(JS_RETURN, 'javascript');
if (typeScriptLoaded()) throw new Error('plain JavaScript loaded amaro');
let t = performance.now();
normalizeScript(TS_RETURN, 'javascript');
const typescriptFirstMs = performance.now() - t;

// Normalization alone.
const js200 = normalizeScript(ts200, 'javascript').code.replace(/[ ]+$/gm, '');
if (normalizeScript(js200, 'javascript').normalized.includes('typescript')) throw new Error('the stripped script still needs TypeScript');
const N = 300;
const normalizeJsReturnUs = timeOf(() => normalizeScript(JS_RETURN, 'javascript'), 2000) * 1000;
const normalizeJsTypicalUs = timeOf(() => normalizeScript(JS_TYPICAL, 'javascript'), 2000) * 1000;
// Before this round, code_execution already parsed every JavaScript script (fence, then acorn for a lone function).
const today = (code: string) => callLoneFunction(stripFence(code, 'javascript') ?? code);
const todayJsTypicalUs = timeOf(() => today(JS_TYPICAL), 2000) * 1000;
const todayJs200Ms = timeOf(() => today(js200), N);
const normalizeTsReturnUs = timeOf(() => normalizeScript(TS_RETURN, 'javascript'), 2000) * 1000;
const transform200Ms = timeOf(() => stripTypeScript(ts200), N);
const normalizeTs200Ms = timeOf(() => normalizeScript(ts200, 'javascript'), N);
const normalizeJs200Ms = timeOf(() => normalizeScript(js200, 'javascript'), N);

// Runs in a warm QuickJS session: as written, with the normalization before this round
// (`today`: fence, then acorn for a lone function) and with this round's, rotated so each
// follows each equally often. Each run starts after 3 ms idle, as a model's next script does
// (seconds later in practice): back to back, the sandbox is still polling its doorbell and a
// run is cheaper than any real one.
const runtime = new JsRuntime({ engine: 'quickjs' });
type Variant = 'none' | 'today' | 'now';
const prepare: Record<Variant, (code: string) => string> = {
  none: (code) => code,
  today: (code) => today(code) ?? code,
  now: (code) => normalizeScript(code, 'javascript').code,
};
/** Time each normalization took inside the runs (cold: after idle, between runs), per variant. */
const prepared: Record<Variant, number[]> = { none: [], today: [], now: [] };
async function timedRun(code: string, variant: Variant): Promise<number> {
  await sleep(3);
  const start = performance.now();
  const ready = prepare[variant](code);
  prepared[variant].push(performance.now() - start);
  const r = await runtime.execute(ready, { tools: [], conversation: 'bench-scripts' });
  if (!r.ok) throw new Error(`run failed: ${JSON.stringify(r.error)}`);
  return performance.now() - start;
}
const ORDERS: Variant[][] = [['none', 'today', 'now'], ['now', 'none', 'today'], ['today', 'now', 'none'], ['none', 'now', 'today'], ['today', 'none', 'now'], ['now', 'today', 'none']];
async function compare(code: string, rounds: number): Promise<Record<Variant, number>> {
  const times: Record<Variant, number[]> = { none: [], today: [], now: [] };
  for (let k = 0; k < 12; k++) await timedRun(code, ORDERS[k % 6]![0]!);
  for (let k = 0; k < rounds; k++) for (const v of ORDERS[k % 6]!) times[v].push(await timedRun(code, v));
  return { none: median(times.none), today: median(times.today), now: median(times.now) };
}
const e2e: Record<string, Record<Variant, number> & { coldNowMs: number; coldTodayMs: number }> = {};
for (const [name, code, rounds] of [['ret', JS_RETURN, 240], ['typical', JS_TYPICAL, 180], ['long', js200, 120]] as const) {
  prepared.now.length = prepared.today.length = 0;
  e2e[name] = { ...(await compare(code, rounds)), coldNowMs: median(prepared.now), coldTodayMs: median(prepared.today) };
}
const tsRuns: number[] = [];
const jsRuns: number[] = [];
for (let k = 0; k < 240; k++) {
  const pairOf = [() => timedRun(TS_RETURN, 'now'), () => timedRun(JS_RETURN, 'now')] as const;
  if (k % 2) {
    tsRuns.push(await pairOf[0]());
    jsRuns.push(await pairOf[1]());
  } else {
    jsRuns.push(await pairOf[1]());
    tsRuns.push(await pairOf[0]());
  }
}
await runtime.close();

const r3 = (x: number) => Number(x.toFixed(3));
const figures = {
  loadAverage: Number(load0.toFixed(2)),
  typescriptFirstMs: Number(typescriptFirstMs.toFixed(1)),
  normalizeJsReturnUs: Number(normalizeJsReturnUs.toFixed(1)),
  normalizeJsTypicalUs: Number(normalizeJsTypicalUs.toFixed(1)),
  todayJsTypicalUs: Number(todayJsTypicalUs.toFixed(1)),
  normalizeJs200Ms: r3(normalizeJs200Ms),
  todayJs200Ms: r3(todayJs200Ms),
  normalizeTsReturnUs: Number(normalizeTsReturnUs.toFixed(1)),
  transform200Ms: r3(transform200Ms),
  normalizeTs200Ms: r3(normalizeTs200Ms),
  runs: Object.fromEntries(Object.entries(e2e).map(([k, v]) => [k, { noneMs: r3(v.none), todayMs: r3(v.today), nowMs: r3(v.now), vsNone: r3(v.now / v.none), vsToday: r3(v.now / v.today), normalizeColdMs: r3(v.coldNowMs), todayColdMs: r3(v.coldTodayMs) }])),
  tsReturnMs: r3(median(tsRuns)),
  jsReturnMs: r3(median(jsRuns)),
  tsVsJsReturn: r3(median(tsRuns) / median(jsRuns)),
};
console.log(`TypeScript transformer (amaro) first load + first script: ${figures.typescriptFirstMs} ms, once per process`);
console.log(`normalizeScript alone (hot loop): return 1 ${figures.normalizeJsReturnUs} µs as JavaScript, ${figures.normalizeTsReturnUs} µs as TypeScript; 25-line JavaScript ${figures.normalizeJsTypicalUs} µs (before this round ${figures.todayJsTypicalUs} µs); 200-line JavaScript ${figures.normalizeJs200Ms} ms (before ${figures.todayJs200Ms} ms)`);
console.log(`200-line TypeScript: transform ${figures.transform200Ms} ms, whole normalization ${figures.normalizeTs200Ms} ms`);
console.log('plain JavaScript, warm QuickJS session, medians: as written | normalized before this round | normalized now | now/as written | now/before (target ≤ 1.05)');
for (const [name, v] of Object.entries(figures.runs)) console.log(`  ${name.padEnd(8)} ${v.noneMs} ms | ${v.todayMs} ms | ${v.nowMs} ms | ${v.vsNone}× | ${v.vsToday}×   (normalization inside the runs: now ${v.normalizeColdMs} ms, before ${v.todayColdMs} ms)`);
console.log(`return 1 as TypeScript ${figures.tsReturnMs} ms vs as JavaScript ${figures.jsReturnMs} ms (${figures.tsVsJsReturn}×)`);
console.log(`(load average ${figures.loadAverage} at the start)`);
console.log(JSON.stringify(figures));
