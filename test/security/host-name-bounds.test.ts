/**
 * Host-side work a script can trigger is bounded: a megabyte tool name or query used to run
 * closest-name ranking (Levenshtein, quadratic) on the host's event loop — `describe(<1M chars>)`
 * stalled the host 53 s under QuickJS, 143 s under V8, 35 s from Python; `searchTools(<1 MB>)`
 * took ~1.1 s a call. Names and queries are now cut to a documented length before any ranking
 * and ranking has a budget, so the host's event loop never waits on it. Each entry point is
 * driven with megabyte inputs while `monitorEventLoopDelay` watches the host.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, test } from 'node:test';
import pino from 'pino';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import type { DispatchRequest } from '../../src/host/types.ts';

const HUGE = 1_000_000;
/**
 * The JavaScript engines' attack uses megabyte inputs too. A megabyte argument's own trip across
 * the sandbox bridge used to cost the host's thread 35-47 ms per call (copy, parse, GC), so the
 * helpers now cut their argument in the guest (ToolBinding.maxArgumentChars) before it crosses.
 */
const JS_HUGE = HUGE;
/** The host's event loop may not wait longer than this on any one piece of work. */
const MAX_DELAY_MS = 50;
/**
 * CPU the host's thread may spend on a whole attack, beyond the same guest work's where the
 * guest runs in this process: 10–60 ms measured on the 2-core machine for JavaScript (up to 100
 * beside two busy loops and the suite, 130 ms once for the V8 case in a clean-clone CI
 * rehearsal), 10–40 ms for Python and for the model's megabyte names; the unbounded ranking
 * this pins cost seconds (44 s of CPU with its bounds removed), so 250 ms still fails it.
 */
const MAX_HOST_WORK_MS = 250;

const hosts: ToolHost[] = [];
const executions: CodeExecution[] = [];

function makeHost(): ToolHost {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  hosts.push(host);
  // Enough tools with long names that an unbounded ranking is clearly visible.
  for (let i = 0; i < 40; i++) {
    host.registerTool({
      name: `tool_number_${i}_${'abcdefghij'.repeat(6)}`,
      description: `Does thing ${i} with words like read file write network.`,
      inputSchema: { type: 'object' },
      handler: async () => textResult('ok'),
    });
  }
  return host;
}
after(async () => {
  for (const ce of executions) await ce.close();
  for (const host of hosts) await host.close();
});

/**
 * Where no guest shares this process: a wait of the host's loop past MAX_DELAY_MS passes only
 * when the host's thread did not spend it working (its CPU under MAX_HOST_WORK_MS). Beside two
 * busy loops the suite saw a 53.6 ms wait with the host's thread at 10-40 ms of CPU.
 */
function assertNotStalled(delay: number, cpuMs: number | undefined): void {
  assert.ok(
    delay < MAX_DELAY_MS || (cpuMs !== undefined && cpuMs < MAX_HOST_WORK_MS),
    `the host's event loop waited ${delay.toFixed(1)} ms; host thread CPU ${cpuMs} ms`,
  );
}

/** The longest the host's event loop waited while `work` ran, in milliseconds. */
async function maxLoopDelay(work: () => Promise<unknown>): Promise<number> {
  return (await hostLoad(work)).delay;
}

/**
 * CPU time of this process's main thread (the host's), in ms, from /proc (Linux; 10 ms ticks);
 * undefined elsewhere.
 */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/**
 * While `work` ran: the longest wait of the host's event loop, and the CPU its thread spent. A
 * wait that is host work shows in that CPU; on a loaded machine the thread can also wait off the
 * CPU altogether, which no bound on the host's work can help (seen: 76 and 114 ms beside two busy
 * loops while the suite ran, with the host's thread nearly idle).
 */
async function hostLoad(work: () => Promise<unknown>): Promise<{ delay: number; cpuMs: number | undefined }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  const before = mainThreadCpuMs();
  h.enable();
  try {
    await work();
  } finally {
    h.disable();
  }
  const after = mainThreadCpuMs();
  return { delay: h.max / 1e6, cpuMs: before === undefined || after === undefined ? undefined : after - before };
}

async function runScript(host: ToolHost, name: string, code: string, language?: 'python') {
  const stream = host.openStream(name);
  try {
    const outcome = await host.dispatch({
      inferenceId: stream.beginInference(),
      name: 'code_execution',
      input: { code, time_limit_ms: 60_000, ...(language ? { language } : {}) },
    });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome).slice(0, 500));
    return (outcome as { result: { structuredContent: any } }).result.structuredContent;
  } finally {
    stream.end();
  }
}

// The script builds the huge inputs itself, so the host receives them only through the helpers.
const JS_ATTACK = `
  const big = 'q'.repeat(${JS_HUGE});
  const errors = [];
  const heard = [];
  for (let i = 0; i < 2; i++) {
    try { await describe(big + i); } catch (e) { errors.push(String(e.message).length); heard.push(Number(/\\((\\d+) characters\\)/.exec(e.message)?.[1])); }
  }
  try { tools[big]; } catch (e) { errors.push(String(e.message).length); }
  const found = await searchTools(('read file ' + big + ' ').repeat(1));
  const words = await searchTools(Array.from({ length: 100000 }, (_, i) => 'w' + i).join(' '));
  return { errors, heard, found: found.length, words: words.length };
`;
/**
 * The same guest work with every helper answered inside the script: QuickJS runs on a worker
 * thread of this process, so a script building megabyte strings competes with the host's thread
 * for the machine's two cores. That is CPU sharing, not work the script made the host do.
 */
const JS_CONTROL = `
  const describe = async (name) => { throw new Error('No tool named "' + name.slice(0, 120) + '" (' + name.length + ' characters)'); };
  const searchTools = async (query) => [query.slice(0, 1)];
  const tools = new Proxy({}, { get() { throw new TypeError('not a tool'); } });
  ${JS_ATTACK}`;

for (const engine of ['quickjs', 'v8'] as const) {
  test(`${engine}: describe, tools[name] and searchTools with megabyte inputs never stall the host`, async (t) => {
    const host = makeHost();
    executions.push(registerCodeExecution(host, { languages: ['javascript'], engine }));
    // Started and warmed outside the measurement: starting an engine is not what is measured.
    assert.equal((await runScript(host, `s-${engine}`, 'return 1')).value, 1);
    let value: any;
    const startedAt = performance.now();
    const { delay, cpuMs } = await hostLoad(async () => {
      value = (await runScript(host, `s-${engine}`, JS_ATTACK)).value;
    });
    // The scheduler's own jitter over as long a span, with no work at all: on a loaded machine
    // the process can be off the CPU for tens of milliseconds, which is not host work. And the
    // delay while the script does the same work without reaching the host (JS_CONTROL).
    const idle = await maxLoopDelay(() => new Promise((resolve) => setTimeout(resolve, performance.now() - startedAt)));
    let control: any;
    const { delay: sharing, cpuMs: controlCpuMs } = await hostLoad(async () => {
      control = (await runScript(host, `s-${engine}`, JS_CONTROL)).value;
    });
    assert.equal(control.errors.length, 3, JSON.stringify(control));
    const jitter = Math.max(idle, sharing);
    const hostWorkMs = cpuMs === undefined || controlCpuMs === undefined ? undefined : cpuMs - controlCpuMs;
    t.diagnostic(
      `host event-loop delay ${delay.toFixed(1)} ms, idle jitter ${idle.toFixed(1)} ms, same guest work without the host ${sharing.toFixed(1)} ms; ` +
        `host thread CPU ${cpuMs} ms, ${controlCpuMs} ms for the same guest work without the host`,
    );
    assert.equal(value.errors.length, 3, JSON.stringify(value));
    // The messages echo a bounded excerpt of the name, not a megabyte.
    for (const length of value.errors) assert.ok(length < 2_000, `error message of ${length} chars`);
    // The host saw the name cut in the guest (the message gives the length it received), not a megabyte.
    assert.equal(value.heard.length, 2);
    for (const length of value.heard) assert.ok(length > 0 && length <= 1_024, `the host received a ${length}-character name`);
    assert.ok(value.found >= 1);
    // A longer wait passes only when the host's thread did not spend it working: its CPU beyond
    // the same guest work's stays under MAX_HOST_WORK_MS.
    assert.ok(
      delay < MAX_DELAY_MS + jitter || (hostWorkMs !== undefined && hostWorkMs < MAX_HOST_WORK_MS),
      `the host's event loop waited ${delay.toFixed(1)} ms (idle jitter ${idle.toFixed(1)} ms, guest work alone ${sharing.toFixed(1)} ms; host thread CPU ${cpuMs} ms against ${controlCpuMs} ms)`,
    );
  });
}

test('python: describe, tools[name] and searchTools with megabyte inputs never stall the host', async (t) => {
  const host = makeHost();
  executions.push(registerCodeExecution(host, { languages: ['python'] }));
  const code = `
import re
big = "q" * ${HUGE}
errors = []
heard = []
for i in range(2):
    try:
        await describe(big + str(i))
    except Exception as e:
        errors.append(len(str(e)))
        m = re.search(r"\\((\\d+) characters\\)", str(e))
        heard.append(int(m.group(1)) if m else None)
try:
    tools[big]
except Exception as e:
    errors.append(len(str(e)))
found = await searchTools("read file " + big)
words = await searchTools(" ".join("w%d" % i for i in range(100000)))
{"errors": errors, "heard": heard, "found": len(found), "words": len(words)}
`;
  assert.equal((await runScript(host, 's-python', '1', 'python')).value, 1);
  let value: any;
  const { delay, cpuMs } = await hostLoad(async () => {
    value = (await runScript(host, 's-python', code, 'python')).value;
  });
  t.diagnostic(`host event-loop delay ${delay.toFixed(1)} ms; host thread CPU ${cpuMs} ms`);
  assert.equal(value.errors.length, 3, JSON.stringify(value));
  for (const length of value.errors) assert.ok(length < 2_000, `error message of ${length} chars`);
  // The interpreter cut the name before it crossed: the host received at most the cut.
  assert.equal(value.heard.length, 2);
  for (const length of value.heard) assert.ok(length > 0 && length <= 1_024, `the host received a ${length}-character name`);
  assert.ok(value.found >= 1);
  // The interpreter is a process of its own, so all of the host thread's CPU meanwhile is host work.
  assertNotStalled(delay, cpuMs);
});

test('a model call with a megabyte unknown tool name is refused quickly, with a bounded message', async (t) => {
  const host = makeHost();
  const stream = host.openStream('model');
  let outcome: any;
  const { delay, cpuMs } = await hostLoad(async () => {
    for (let i = 0; i < 4; i++) {
      outcome = await host.dispatch({ inferenceId: stream.beginInference(), name: 'z'.repeat(HUGE) + i, input: {} });
      // A refusal settles in a microtask: without a turn of the loop between dispatches the
      // delay monitor never samples, and saw 0 ms while an unbounded ranking held the thread 50 s.
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
  t.diagnostic(`host event-loop delay ${delay.toFixed(1)} ms; host thread CPU ${cpuMs} ms`);
  stream.end();
  assert.equal(outcome.status, 'refused');
  assert.equal(outcome.refusal.code, 'unknown_tool');
  assert.ok(outcome.refusal.message.length < 2_000, `message of ${outcome.refusal.message.length} chars`);
  assertNotStalled(delay, cpuMs);
});

test('refusals that come before the tool lookup quote a bounded excerpt of a megabyte name', async () => {
  const host = makeHost();
  const stream = host.openStream('model');
  const done = await host.dispatch({ inferenceId: stream.beginInference(), name: 'tool_number_0_' + 'abcdefghij'.repeat(6), input: {} });
  assert.equal(done.status, 'completed');
  const name = 'z'.repeat(HUGE);
  const cases: [string, Partial<DispatchRequest>][] = [
    ['invalid_request', { timeoutMs: NaN }],
    ['aborted', { signal: AbortSignal.abort(new Error('gone')) }],
    ['parent_ended', { parentToolCallId: done.toolCallId }],
  ];
  for (const [code, extra] of cases) {
    const outcome = await host.dispatch({ inferenceId: stream.beginInference(), name, input: {}, ...extra });
    assert.equal(outcome.refusal?.code, code);
    assert.ok(outcome.refusal!.message.length < 2_000, `${code}: message of ${outcome.refusal!.message.length} chars`);
  }
  stream.end();
});
