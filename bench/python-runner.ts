/**
 * Python runner speed: warm execution round trip of a trivial script, and inner tool calls per
 * second with a no-op tool (awaited one by one, and fanned out with asyncio.gather). The
 * baseline, measured in the same run, is a bare JSON line echoed through a python3 process over
 * pipes: the floor any stdio protocol pays. Last line: one JSON object.
 *
 *   npx tsx bench/python-runner.ts
 */
import { spawn } from 'node:child_process';
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

async function main(): Promise<void> {
  const noop: ToolBinding = { name: 'bench--noop', invoke: async () => null };
  const tools = [noop];
  const runner = new PythonRunner({ outputCapBytes: 1 << 20 });
  await runner.start();

  const baselineMs = await echoRoundTripMs(EXEC_ROUNDS);

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

  console.log(`echo round trip (baseline):   ${baselineMs.toFixed(3)} ms`);
  console.log(`warm exec of "1 + 1":         ${warmExecMs.toFixed(3)} ms  (${(warmExecMs / baselineMs).toFixed(2)}x baseline)`);
  console.log(`inner calls/s, awaited 1 by 1: ${sequential}  (${((1000 / sequential) / baselineMs).toFixed(2)}x baseline per call)`);
  console.log(`inner calls/s, asyncio.gather: ${gathered}`);
  console.log(
    JSON.stringify({
      pyEchoRoundTripMs: +baselineMs.toFixed(4),
      pyWarmExecMs: +warmExecMs.toFixed(4),
      pyWarmExecVsEcho: +(warmExecMs / baselineMs).toFixed(2),
      pyInnerCallsPerSec: sequential,
      pyInnerCallsPerSecGather: gathered,
    }),
  );
}

await main();
