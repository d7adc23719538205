/**
 * Stress harness for the QuickJS pool's run protocol (a rare hang seen once in ~65,000 churn
 * conversations: a run whose inner call completed never finished). Not a benchmark of speed:
 * it drives the interleavings the protocol must survive — many runs at once on few processes,
 * conversation names reused, conversations ended while their runs are in flight, tool catalogs
 * changing between runs (past the 8 a process holds), unawaited calls left in kept VMs, inner
 * calls answered at random moments — and counts runs that do not end within `hangMs`, dumping
 * the pool's state for each.
 *
 *   npx tsx bench/pool-hang-stress.ts [runs=20000] [workers=24] [maxProcesses=1] [seed=1] [hangMs=5000]
 *   env HANG_MODE=churn (a new conversation per run, ended after it, as the churn bench),
 *       HANG_STALL_MS=350 (host event-loop stalls past the idle confirmation),
 *       HANG_KILL_MS=1500 (a sandbox process SIGKILLed from outside this often)
 *
 * Run two copies at once for CPU load. Not part of npm test (minutes long, timing-driven).
 * Ends with one JSON line: runs, failures by kind, hangs.
 */
import { JsRuntime, type ExecuteResult } from '../src/runtime/js/index.ts';
import type { ToolBinding } from '../src/runtime/types.ts';
import type { QuickjsPool } from '../src/runtime/js/engines/quickjs/pool.ts';

const [runsArg, workersArg, processesArg, seedArg, hangArg] = process.argv.slice(2);
const total = Number(runsArg ?? 20_000);
const workers = Number(workersArg ?? 24);
const maxProcesses = Number(processesArg ?? 1);
let seed = Number(seedArg ?? 1) >>> 0 || 1;
const hangMs = Number(hangArg ?? 5_000);

function rand(): number {
  // xorshift32: reproducible choices for one seed (timing still varies run to run).
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 2 ** 32;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

/** Answers at a random moment: at once, next microtask, next turn, or 0–2 ms later. */
function later<T>(value: T): T | Promise<T> {
  const r = rand();
  if (r < 0.2) return value;
  if (r < 0.4) return Promise.resolve(value);
  if (r < 0.7) return new Promise((resolve) => setImmediate(() => resolve(value)));
  const ms = Math.floor(rand() * 3);
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

const echo = (name: string): ToolBinding => ({ name, invoke: async (args) => later(args) });
const base = [echo('t0'), echo('t1')];
/** 14 catalogs: more than a process holds (8) and than the runtime remembers shapes of (16 is close). */
const catalogs: ToolBinding[][] = Array.from({ length: 14 }, (_, i) => [...base, echo(`x${i}`)]);

const scripts = [
  'const r = await tools.t0({ i: 1 }); return r.i;',
  'const [a, b] = await Promise.all([tools.t0({ i: 1 }), tools.t1({ i: 2 })]); return a.i + b.i;',
  'let s = 0; for (let k = 0; k < 3; k++) s += (await tools.t1({ i: k })).i; return s;',
  // An unawaited call: the run ends, its VM is kept with the call still pending.
  'tools.t0({ i: 9 }); return 1;',
  'globalThis.n = (globalThis.n ?? 0) + 1; await tools.t0({ i: 1 }); return n;',
  'await tools.t0({ i: 1 }); throw new Error("thrown");',
  'let x = 0; for (let k = 0; k < 20000; k++) x += k; return (await tools.t1({ i: x })).i;',
];

const runtime = new JsRuntime({ pool: { maxProcesses, runsPerProcess: 16 } });
if (process.env.HANG_MODE === 'churn') console.log('churn mode: a new conversation per run, ended after it');
const pool = (runtime as unknown as { quickjs: QuickjsPool }).quickjs;
const names = Array.from({ length: 12 }, (_, i) => `c${i}`);

function dump(what: string): void {
  const p = pool as unknown as {
    hosts: Set<{ process: { pid?: number; alive: boolean }; ready: boolean; load: number; finishing: number; listeners: Map<number, unknown>; conversations: Set<string>; cancelling: Map<number, unknown>; slots: number }>;
    conversations: Map<string, { host: unknown; active: number; session: boolean; ending: boolean }>;
    queue: unknown[];
  };
  const hosts = [...p.hosts];
  console.log(`HANG ${what}`);
  for (const [i, h] of hosts.entries()) {
    console.log(`  host ${i} pid ${h.process.pid} alive ${h.process.alive} ready ${h.ready} load ${h.load} finishing ${h.finishing} listeners [${[...h.listeners.keys()]}] cancelling [${[...h.cancelling.keys()]}] conversations ${h.conversations.size} slots ${h.slots}`);
  }
  for (const [name, c] of p.conversations) if (c.active > 0 || c.ending) console.log(`  conversation ${name}: host ${hosts.indexOf(c.host as never)} active ${c.active} session ${c.session} ending ${c.ending}`);
  console.log(`  queued ${p.queue.length}`);
}

let started = 0;
let done = 0;
let hangs = 0;
const failures: Record<string, number> = {};
const firstFailure: Record<string, string> = {};

/** `churn` (env HANG_MODE): as bench/conversation-churn.ts — a new conversation per run, ended right after it. */
const churnMode = process.env.HANG_MODE === 'churn';

async function one(n: number): Promise<void> {
  if (churnMode) {
    const conversation = `churn-${n}`;
    const result = await watched(n, conversation, scripts[0]!, runtime.execute(scripts[0]!, { tools: catalogs[0]!, conversation, timeoutMs: 20_000 }));
    runtime.endConversation(conversation);
    return count(n, result);
  }
  const conversation = rand() < 0.1 ? undefined : pick(names);
  const tools = pick(catalogs);
  const reset = rand() < 0.05;
  // A few runs end from outside: a spinning script past a short limit (cancelled mid-script
  // through the board), or an abort at a random moment.
  const r = rand();
  const code = r < 0.03 ? 'await tools.t0({ i: 1 }); for (;;) {}' : pick(scripts);
  const timeoutMs = r < 0.03 ? 20 + Math.floor(rand() * 60) : 20_000;
  let signal: AbortSignal | undefined;
  if (r >= 0.03 && r < 0.06) {
    const controller = new AbortController();
    signal = controller.signal;
    setTimeout(() => controller.abort(new Error('stress abort')), Math.floor(rand() * 4));
  }
  const running = runtime.execute(code, { tools, ...(conversation ? { conversation } : {}), ...(reset ? { reset } : {}), ...(signal ? { signal } : {}), timeoutMs });
  if (conversation !== undefined && rand() < 0.3) {
    // End the conversation while the run is starting, running or finishing.
    const r = rand();
    const end = () => runtime.endConversation(conversation);
    if (r < 0.3) queueMicrotask(end);
    else if (r < 0.6) setImmediate(end);
    else setTimeout(end, Math.floor(rand() * 3));
  }
  return count(n, await watched(n, conversation, code, running));
}

async function watched(n: number, conversation: string | undefined, code: string, running: Promise<ExecuteResult>): Promise<ExecuteResult> {
  let timer: NodeJS.Timeout | undefined;
  const watch = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), hangMs);
  });
  const first = await Promise.race([running, watch]);
  if (first === 'hang') {
    hangs++;
    dump(`run #${n} (${conversation ?? 'no conversation'}) did not end within ${hangMs} ms: ${JSON.stringify(code)}`);
  }
  const result = await running;
  clearTimeout(timer);
  return result;
}

function count(n: number, result: ExecuteResult): void {
  if (!result.ok) {
    const key = `${result.error.kind}:${result.error.message.slice(0, 60)}`;
    failures[key] = (failures[key] ?? 0) + 1;
    if (result.error.kind !== 'script') firstFailure[key] ??= `run #${n}: ${JSON.stringify(result.error).slice(0, 300)}`;
  }
  done++;
}

async function worker(): Promise<void> {
  while (started < total) {
    const n = ++started;
    await one(n);
    if (rand() < 0.2) await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Host stalls (env HANG_STALL_MS, default 0): the host's event loop blocked now and then, as a
 * full GC or a synchronous `ps` does at the churn bench's checkpoints — long enough to pass the
 * 300 ms idle confirmation, so finished runs are cancelled and their cancels race later runs.
 */
const stallMs = Number(process.env.HANG_STALL_MS ?? 0);
const stalls = stallMs > 0 ? setInterval(() => {
  const until = performance.now() + stallMs * (0.5 + rand());
  while (performance.now() < until);
}, 700) : undefined;

/**
 * Crashes (env HANG_KILL_MS, default 0): now and then a sandbox process is killed from outside,
 * so runs in flight must hear of it and the pool must replace it.
 */
const killMs = Number(process.env.HANG_KILL_MS ?? 0);
const kills = killMs > 0 ? setInterval(() => {
  const hosts = [...(pool as unknown as { hosts: Set<{ process: { pid?: number } }> }).hosts];
  const pid = hosts.length > 0 ? pick(hosts).process.pid : undefined;
  if (pid !== undefined) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}, killMs) : undefined;

const t0 = performance.now();
const progress = setInterval(() => console.log(`  ${done} runs, ${hangs} hangs, ${Math.round(performance.now() - t0)} ms`), 10_000);
try {
  await Promise.all(Array.from({ length: workers }, () => worker()));
} finally {
  clearInterval(progress);
  clearInterval(stalls);
  clearInterval(kills);
  await runtime.close();
}
const ms = Math.round(performance.now() - t0);
const scriptErrors = Object.entries(failures).filter(([k]) => !k.startsWith('script:'));
for (const [k, v] of scriptErrors) console.log(`  ${v} × ${k}  (${firstFailure[k]})`);
console.log(JSON.stringify({ bench: 'pool-hang-stress', runs: done, workers, maxProcesses, ms, hangs, failures, stats: runtime.stats() }));
