/**
 * The model's side of a fault run: conversations taking turns, each turn one model response
 * whose 1–3 calls are dispatched in the same tick — direct calls to built-ins and provider
 * tools (fast, slow, erroring, throwing, hanging, crashing, refused) and `code_execution` in
 * both languages with 0–20 inner calls — and whose stream ends at a random moment: in the same
 * tick, after a delay, by an interrupt, or once everything answered.
 */
import { join } from 'node:path';
import type { ToolHost } from '../../src/host/tool-host.ts';
import type { Rng } from './rng.ts';
import type { Recorder } from './recorder.ts';

type Args = Record<string, string | number | boolean>;
interface Call {
  name: string;
  input: unknown;
  timeoutMs?: number;
}

export interface WorkloadOptions {
  /** Stop starting turns once this many dispatches (model and script calls) were made. */
  calls: number;
  conversations: number;
  dir: string;
  maxTimeLimitMs: number;
}

export interface WorkloadCounts {
  turns: number;
  sameTickEnds: number;
  delayedEnds: number;
  interrupts: number;
  bursts: number;
  executions: { javascript: number; python: number };
}

/** An inner or direct call to a tool, as a name and arguments. */
function toolCall(rng: Rng, dir: string, forScript: boolean): { name: string; args: Args; timeoutMs?: number } {
  return rng.weighted<() => { name: string; args: Args; timeoutMs?: number }>([
    [6, () => ({ name: 'b_fast', args: { n: rng.int(0, 999) } })],
    [3, () => ({ name: 'b_slow', args: { ms: rng.int(1, 40), honor: rng.chance(0.5) } })],
    [2, () => ({ name: 'b_error', args: { path: `f${rng.int(0, 9)}` } })],
    [2, () => ({ name: 'b_throw', args: { sync: rng.chance(0.5) } })],
    [1, () => ({ name: 'b_hang', args: { honor: rng.chance(0.5) }, timeoutMs: rng.int(150, 600) })],
    [5, () => ({ name: 'p--run', args: { delay_ms: rng.int(0, 30), step: rng.int(0, 99) } })],
    [1, () => ({ name: 'p--run', args: { error: 'bad input' } })],
    [1, () => ({ name: 'p--run', args: { hold_file: join(dir, `never-${rng.int(0, 1e6)}`) }, timeoutMs: rng.int(200, 700) })],
    [forScript ? 0.15 : 0.3, () => ({ name: 'p--run', args: { crash: true }, timeoutMs: 2_000 })],
    [2, () => ({ name: 'p--fetch', args: { delay_ms: rng.int(0, 20) } })],
    [1, () => ({ name: 'p--send', args: { to: 'bob', n: rng.int(0, 9) } })],
    [forScript ? 0 : 0.5, () => ({ name: 'b_nope', args: {} })],
    [forScript ? 0.3 : 0, () => ({ name: 'code_execution', args: { code: '1' } })],
  ])();
}

const ident = (name: string) => name.replace(/-/g, '_');
const pyValue = (v: string | number | boolean) => (typeof v === 'boolean' ? (v ? 'True' : 'False') : JSON.stringify(v));
const pyArgs = (args: Args) => `{${Object.entries(args).map(([k, v]) => `${JSON.stringify(k)}: ${pyValue(v)}`).join(', ')}}`;

/** A script with 0–20 inner calls, some awaited one by one, some in parallel groups. */
function script(rng: Rng, dir: string, language: 'javascript' | 'python'): { code: string; inner: number } {
  const lines: string[] =
    language === 'javascript'
      ? ['const out = [];', 'const c = (p) => p.then((v) => out.push(1), (e) => out.push(e.name));']
      : ['import asyncio', 'out = []', 'async def c(aw):', '    try:', '        out.append(await aw)', '    except Exception as e:', '        out.append(type(e).__name__)'];
  const total = rng.int(0, 20);
  let made = 0;
  while (made < total) {
    const group = Math.min(total - made, rng.chance(0.3) ? rng.int(2, 5) : 1);
    const calls = Array.from({ length: group }, () => {
      const { name, args } = toolCall(rng, dir, true);
      return language === 'javascript' ? `c(tools[${JSON.stringify(name)}](${JSON.stringify(args)}))` : `c(tools.${ident(name)}(${pyArgs(args)}))`;
    });
    made += group;
    if (group === 1) lines.push(language === 'javascript' ? `await ${calls[0]};` : `await ${calls[0]}`);
    else lines.push(language === 'javascript' ? `await Promise.all([${calls.join(', ')}]);` : `await asyncio.gather(${calls.join(', ')})`);
  }
  const ending = rng.weighted([
    [85, 'return'],
    [8, 'spin'],
    [4, 'sleep'],
    [3, 'throw'],
  ] as const);
  if (language === 'javascript') {
    if (ending === 'spin') lines.push('while (true) {}');
    if (ending === 'sleep') lines.push('await new Promise(() => {});');
    if (ending === 'throw') lines.push('throw new Error("script failed on purpose");');
    lines.push('return out.length;');
  } else {
    if (ending === 'spin') lines.push('while True:', '    pass');
    if (ending === 'sleep') lines.push('import time', 'time.sleep(30)');
    if (ending === 'throw') lines.push('raise ValueError("script failed on purpose")');
    lines.push('len(out)');
  }
  return { code: lines.join('\n'), inner: total };
}

function modelCall(rng: Rng, options: WorkloadOptions, counts: WorkloadCounts): Call {
  if (rng.chance(0.45)) {
    const language = rng.chance(0.5) ? 'javascript' : 'python';
    counts.executions[language] += 1;
    const { code } = script(rng, options.dir, language);
    const input: Record<string, unknown> = { code, language };
    if (rng.chance(0.4)) input.time_limit_ms = rng.int(1000, options.maxTimeLimitMs);
    return { name: 'code_execution', input };
  }
  if (rng.chance(0.03)) return { name: 'b_fast', input: [1, 2] }; // arguments that are not an object: refused
  const { name, args, timeoutMs } = toolCall(rng, options.dir, false);
  return { name, input: args, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One model response: its calls in the same tick, its stream ended at a random moment. */
async function turn(host: ToolHost, rec: Recorder, rng: Rng, conversationId: string, options: WorkloadOptions, counts: WorkloadCounts): Promise<void> {
  counts.turns += 1;
  const stream = host.openStream(conversationId);
  const inferenceId = stream.beginInference();
  rec.conversations.set(inferenceId, conversationId);
  // Now and then a response with many parallel calls: a burst the observers' queues must absorb.
  const burst = rng.chance(0.08);
  const calls = burst
    ? Array.from({ length: rng.int(10, 40) }, () => ({ name: rng.chance(0.8) ? 'b_fast' : 'p--run', input: { burst: rng.int(0, 999) } }) as Call)
    : Array.from({ length: rng.int(1, 3) }, () => modelCall(rng, options, counts));
  if (burst) counts.bursts += 1;
  const ending = rng.weighted([
    [15, 'same-tick'],
    [25, 'delay'],
    [10, 'interrupt'],
    [50, 'after'],
  ] as const);
  const delay = rng.int(0, 400);
  const outcomes = Promise.all(
    calls.map((c, i) =>
      host.dispatch({ inferenceId, name: c.name, input: c.input, modelCallId: `call_${i}`, ...(c.timeoutMs !== undefined ? { timeoutMs: c.timeoutMs } : {}) }),
    ),
  );
  if (ending === 'same-tick') {
    counts.sameTickEnds += 1;
    stream.end('the response ended');
  }
  const side =
    ending === 'delay'
      ? sleep(delay).then(() => {
          counts.delayedEnds += 1;
          stream.end('the response ended');
        })
      : ending === 'interrupt'
        ? sleep(delay).then(() => {
            counts.interrupts += 1;
            host.interrupt(conversationId, 'the user interrupted');
          })
        : Promise.resolve();
  await Promise.all([outcomes, side]);
  stream.end('turn complete');
}

/** Runs turns in every conversation until the call target is reached or `stop()` is called. */
export function runWorkload(host: ToolHost, rec: Recorder, rng: Rng, options: WorkloadOptions) {
  const counts: WorkloadCounts = { turns: 0, sameTickEnds: 0, delayedEnds: 0, interrupts: 0, bursts: 0, executions: { javascript: 0, python: 0 } };
  let stopped = false;
  const loops = Array.from({ length: options.conversations }, async (_, k) => {
    const local = rng.fork();
    while (!stopped && rec.dispatches.length < options.calls) {
      await turn(host, rec, local, `conv_${k}`, options, counts);
    }
  });
  return {
    counts,
    done: Promise.all(loops).then(() => undefined),
    stop() {
      stopped = true;
    },
  };
}
