/**
 * Python runner speed: warm execution round trip of a trivial script, and inner tool calls per
 * second with a no-op tool (awaited one by one, and fanned out with asyncio.gather). The
 * baseline, measured in the same run, is a bare JSON line echoed through a python3 process over
 * pipes: the floor any stdio protocol pays. Each figure is measured without the OS layer and,
 * where bubblewrap works, inside it (ratio printed). Last line: one JSON object.
 *
 *   npx tsx bench/python-runner.ts
 */
import { spawn } from 'node:child_process';
import { probeBwrap } from '../src/runtime/isolation/index.ts';
import { PythonRunner } from '../src/runtime/python/index.ts';
import type { ToolBinding } from '../src/runtime/types.ts';

const EXEC_ROUNDS = 2000;
const CALLS = 5000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function echoRoundTripMs(rounds: number): Promise<number> {
  const child = spawn('python3', ['-I', '-c', 'import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n    sys.stdout.buffer.flush()'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdout.setEncoding('utf8');
  let waiting: (() => void) | null = null;
  child.stdout.on('data', () => waiting?.());
  const times: number[] = [];
  const line = `${JSON.stringify({ t: 'run', run: 1, code: '1 + 1' })}\n`;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      waiting = resolve;
      child.stdin.write(line);
    });
    times.push(performance.now() - t0);
  }
  child.stdin.end();
  return median(times.slice(rounds / 10));
}

interface Figures {
  startMs: number;
  warmExecMs: number;
  sequential: number;
  gathered: number;
}

/** One runner under `isolation`: a cold start (interpreter already resolved), warm runs, inner calls. */
async function measure(isolation: 'none' | 'bwrap', tools: ToolBinding[]): Promise<Figures> {
  const runner = new PythonRunner({ outputCapBytes: 1 << 20, isolation });
  await runner.start(); // resolves the interpreter once for the process
  runner.kill();
  const s0 = performance.now();
  await runner.start();
  const startMs = performance.now() - s0;

  const times: number[] = [];
  for (let i = 0; i < EXEC_ROUNDS; i++) {
    const t0 = performance.now();
    const r = await runner.run('1 + 1', { tools, timeoutMs: 10_000 });
    times.push(performance.now() - t0);
    if (r.value !== 2) throw new Error(`unexpected result ${JSON.stringify(r)}`);
  }
  const warmExecMs = median(times.slice(EXEC_ROUNDS / 10));

  const callRate = async (code: string) => {
    await runner.run(code.replace(String(CALLS), '100'), { tools, timeoutMs: 60_000 });
    const t0 = performance.now();
    const r = await runner.run(code, { tools, timeoutMs: 60_000 });
    const seconds = (performance.now() - t0) / 1000;
    if (!r.ok || r.calls.length !== CALLS) throw new Error(`call bench failed: ${r.error?.message ?? r.calls.length}`);
    return Math.round(CALLS / seconds);
  };
  const sequential = await callRate(`for _ in range(${CALLS}):\n    await tools.bench__noop()`);
  const gathered = await callRate(`import asyncio\nawait asyncio.gather(*(tools.bench__noop() for _ in range(${CALLS})))`);
  await runner.close();
  return { startMs, warmExecMs, sequential, gathered };
}

async function main(): Promise<void> {
  const noop: ToolBinding = { name: 'bench--noop', invoke: async () => null };
  const tools = [noop];
  const baselineMs = await echoRoundTripMs(EXEC_ROUNDS);
  const plain = await measure('none', tools);
  const sandboxed = probeBwrap().ok ? await measure('bwrap', tools) : null;

  console.log(`echo round trip (baseline):   ${baselineMs.toFixed(3)} ms`);
  for (const [name, f] of [['none', plain], ['bwrap', sandboxed]] as const) {
    if (!f) {
      console.log(`[${name}] bubblewrap unavailable here: not measured`);
      continue;
    }
    console.log(`[${name}] interpreter start:          ${f.startMs.toFixed(1)} ms`);
    console.log(`[${name}] warm exec of "1 + 1":       ${f.warmExecMs.toFixed(3)} ms  (${(f.warmExecMs / baselineMs).toFixed(2)}x baseline)`);
    console.log(`[${name}] inner calls/s, awaited 1 by 1: ${f.sequential}  (${(1000 / f.sequential / baselineMs).toFixed(2)}x baseline per call)`);
    console.log(`[${name}] inner calls/s, asyncio.gather: ${f.gathered}`);
  }
  console.log(
    JSON.stringify({
      pyEchoRoundTripMs: +baselineMs.toFixed(4),
      pyWarmExecMs: +plain.warmExecMs.toFixed(4),
      pyWarmExecVsEcho: +(plain.warmExecMs / baselineMs).toFixed(2),
      pyInnerCallsPerSec: plain.sequential,
      pyInnerCallsPerSecGather: plain.gathered,
      pyStartMs: +plain.startMs.toFixed(1),
      ...(sandboxed
        ? {
            pyBwrapWarmExecMs: +sandboxed.warmExecMs.toFixed(4),
            pyBwrapWarmExecVsNone: +(sandboxed.warmExecMs / plain.warmExecMs).toFixed(2),
            pyBwrapInnerCallsPerSec: sandboxed.sequential,
            pyBwrapInnerCallsPerSecGather: sandboxed.gathered,
            pyBwrapStartMs: +sandboxed.startMs.toFixed(1),
          }
        : {}),
    }),
  );
}

await main();
