/**
 * Cold start and memory of the JavaScript sandbox (`npm run bench:cold`).
 *
 * Each sample is a fresh Node process (the modules already imported, as an agent framework has
 * them): toolcell's `registerCodeExecution` → its first `code_execution` result (`return 1`), with
 * QuickJS on threads (the default) and on processes, against @earendil-works/pi-codemode's
 * `new CodemodeSandbox` → first `execute()`. Samples are interleaved. After that first run this
 * process reads the sample's tree RSS from /proc (the process and every descendant), then the
 * sample runs 32 more conversations (each keeps a session) and the tree is read again: the
 * difference ÷ 32 is the memory per added conversation. Then, in fresh processes again, the runs
 * right after the first, each sent as soon as the one before answered: the same conversation's
 * second run, and a second conversation's first run (pi-codemode: its second `execute()`). The
 * second run waits for the spare VM the thread restores after its first run, which V8 holds
 * behind the optimizing compile that run set off; a second conversation's first run waits for
 * a thread started for it (src/runtime/js/README.md says why both stay). The last line is JSON.
 */
import os from 'node:os';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { descendants, rssBytes } from './proc.ts';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const CONVERSATIONS = 32;
type Kind = 'toolcell-threads' | 'toolcell-processes' | 'pi-codemode';
const KINDS: Kind[] = ['toolcell-threads', 'toolcell-processes', 'pi-codemode'];

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, digits = 1): number => Number(x.toFixed(digits));

const treeMb = (pid: number): number => [pid, ...descendants(pid)].reduce((sum, p) => sum + rssBytes(p), 0) / 2 ** 20;

/** Milliseconds `work` took. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await work();
  return performance.now() - t;
}

async function child(kind: Kind, mode: 'memory' | 'next-runs'): Promise<void> {
  const say = (message: unknown) => new Promise<void>((resolve) => process.send!(message, () => resolve()));
  const next = () => new Promise<void>((resolve) => process.once('message', () => resolve()));
  if (kind === 'pi-codemode') {
    const { CodemodeSandbox } = await import('@earendil-works/pi-codemode');
    const t = performance.now();
    const pi = new CodemodeSandbox({ timeoutMs: 60_000, tools: [] });
    const execute = async (code: string) => {
      const r = await pi.execute(code);
      if (!r.ok) throw new Error('pi-codemode failed');
    };
    await execute('return 1');
    const coldMs = performance.now() - t;
    if (mode === 'next-runs') {
      await say({ coldMs, secondMs: await timed(() => execute('return 2')) });
      await pi.close();
      return process.exit(0);
    }
    await say({ coldMs });
    await next();
    await say({});
    await next();
    await pi.close();
    return process.exit(0);
  }
  const [{ ToolHost }, { registerCodeExecution }, pino] = await Promise.all([
    import('../src/host/tool-host.ts'),
    import('../src/code-execution/index.ts'),
    import('pino'),
    import('../src/runtime/js/index.ts'), // loaded, as a framework's imports are: not timed
  ]);
  const host = new ToolHost({ logger: pino.default({ level: 'silent' }) });
  const t = performance.now();
  const ce = registerCodeExecution(host, { languages: ['javascript'], jsThreads: kind === 'toolcell-threads' });
  const run = async (conversation: string, code: string) => {
    const stream = host.openStream(conversation);
    try {
      const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code } });
      if (outcome.status !== 'completed') throw new Error(`code_execution ${outcome.status}`);
    } finally {
      stream.end();
    }
  };
  await run('c0', 'return 1');
  const coldMs = performance.now() - t;
  if (mode === 'next-runs') {
    const secondMs = await timed(() => run('c0', 'return 2'));
    const nextConversationMs = await timed(() => run('c1', 'return 3'));
    await say({ coldMs, secondMs, nextConversationMs });
    await ce.close();
    await host.close();
    return process.exit(0);
  }
  await say({ coldMs });
  await next();
  for (let i = 1; i <= CONVERSATIONS; i++) await run(`c${i}`, `x = ${i}; return x`);
  await say({});
  await next();
  await ce.close();
  await host.close();
  process.exit(0);
}

function forkChild(kind: Kind, mode: 'memory' | 'next-runs') {
  return fork(fileURLToPath(import.meta.url), ['child', kind, mode], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

interface NextRuns {
  coldMs: number;
  secondMs: number;
  nextConversationMs?: number;
}

async function nextRuns(kind: Kind): Promise<NextRuns> {
  const proc = forkChild(kind, 'next-runs');
  const [figures] = await Promise.all([new Promise<NextRuns>((resolve) => proc.once('message', (m) => resolve(m as NextRuns))), new Promise((resolve) => proc.once('exit', resolve))]);
  return figures;
}

async function sample(kind: Kind): Promise<{ coldMs: number; rssMb: number; perConversationMb: number }> {
  const proc = forkChild(kind, 'memory');
  const messages: unknown[] = [];
  let wake: (() => void) | undefined;
  proc.on('message', (m) => {
    messages.push(m);
    wake?.();
  });
  const receive = async (): Promise<any> => {
    while (messages.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return messages.shift();
  };
  const { coldMs } = await receive();
  const rssMb = treeMb(proc.pid!);
  proc.send('go');
  await receive();
  const after = treeMb(proc.pid!);
  proc.send('go');
  await new Promise((resolve) => proc.once('exit', resolve));
  return { coldMs, rssMb, perConversationMb: (after - rssMb) / CONVERSATIONS };
}

if (process.argv[2] === 'child') {
  await child(process.argv[3] as Kind, process.argv[4] as 'memory' | 'next-runs');
} else {
  const results = new Map(KINDS.map((k) => [k, [] as Array<Awaited<ReturnType<typeof sample>>>]));
  for (let i = 0; i < SAMPLES; i++) for (const kind of KINDS) results.get(kind)!.push(await sample(kind));
  const pi = median(results.get('pi-codemode')!.map((s) => s.coldMs));
  const figures = KINDS.map((kind) => {
    const s = results.get(kind)!;
    const coldMs = median(s.map((x) => x.coldMs));
    return {
      kind,
      coldMs: round(coldMs),
      coldMsRange: [round(Math.min(...s.map((x) => x.coldMs))), round(Math.max(...s.map((x) => x.coldMs)))],
      coldVsPi: round(coldMs / pi, 2),
      rssMb: round(median(s.map((x) => x.rssMb))),
      perConversationMb: round(median(s.map((x) => x.perConversationMb)), 2),
    };
  });
  for (const f of figures) {
    console.log(`${f.kind}: first result ${f.coldMs} ms (${f.coldMsRange.join('–')}; ${f.coldVsPi}× pi-codemode), tree RSS after one run ${f.rssMb} MB, ${f.perConversationMb} MB per added conversation`);
  }
  const next = new Map(KINDS.map((k) => [k, [] as NextRuns[]]));
  for (let i = 0; i < SAMPLES; i++) for (const kind of KINDS) next.get(kind)!.push(await nextRuns(kind));
  const piSecond = median(next.get('pi-codemode')!.map((s) => s.secondMs));
  const nextFigures = KINDS.map((kind) => {
    const s = next.get(kind)!;
    const conversation = s.filter((x) => x.nextConversationMs !== undefined).map((x) => x.nextConversationMs!);
    return {
      kind,
      secondMs: round(median(s.map((x) => x.secondMs))),
      secondMsRange: [round(Math.min(...s.map((x) => x.secondMs))), round(Math.max(...s.map((x) => x.secondMs)))],
      secondVsPi: round(median(s.map((x) => x.secondMs)) / piSecond, 2),
      ...(conversation.length > 0 ? { nextConversationMs: round(median(conversation)), nextConversationMsRange: [round(Math.min(...conversation)), round(Math.max(...conversation))] } : {}),
    };
  });
  for (const f of nextFigures) {
    const conversation = f.nextConversationMs === undefined ? '' : `; a second conversation's first run ${f.nextConversationMs} ms (${f.nextConversationMsRange!.join('–')})`;
    console.log(`${f.kind}: the run sent right after the first ${f.secondMs} ms (${f.secondMsRange.join('–')}; ${f.secondVsPi}× pi-codemode's)${conversation}`);
  }
  console.log(JSON.stringify({ samples: SAMPLES, loadAverage: os.loadavg().map((x) => round(x, 2)), figures, nextRuns: nextFigures }));
}
