import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { PythonRunner } from '../../../src/runtime/python/index.ts';
import { closestNames } from '../../../src/runtime/names.ts';
import type { ToolBinding, ToolCallContext } from '../../../src/runtime/types.ts';
import { deferred, tool, toolError } from './helpers.ts';

const runner = new PythonRunner();
after(() => runner.close());

const echo = tool('x--run', async (args) => ({ echoed: args }));
const run = (code: string, tools: ToolBinding[] = [echo], timeoutMs = 10_000) => runner.run(code, { tools, timeoutMs });

test('a tool is reachable as tools.identifier and tools["host-name"], with a dict or keywords', async () => {
  const r = await run('a = await tools.x__run({"a": 1})\nb = await tools["x--run"](b=2)\nc = await tools.x__run({"a": 1}, c=3)\n[a, b, c]');
  assert.equal(r.ok, true, r.stderr);
  assert.deepEqual(r.value, [{ echoed: { a: 1 } }, { echoed: { b: 2 } }, { echoed: { a: 1, c: 3 } }]);
  assert.deepEqual(
    r.calls.map((c) => [c.name, c.status]),
    [['x--run', 'ok'], ['x--run', 'ok'], ['x--run', 'ok']],
  );
});

test('tools are async functions usable with asyncio.gather; calls are summarised in start order', async () => {
  const gates = [deferred(), deferred(), deferred()];
  const started: number[] = [];
  const slow = tool('slow', async (args) => {
    const i = (args as { i: number }).i;
    started.push(i);
    if (started.length === 3) gates[2]!.resolve(null);
    await gates[i]!.promise;
    return i * 10;
  });
  const running = run('import asyncio, inspect\nassert inspect.iscoroutinefunction(tools.slow)\nawait asyncio.gather(*(tools.slow({"i": i}) for i in range(3)))', [slow]);
  // All three are in flight at once: the last one only resolves after all three started.
  await gates[2]!.promise;
  gates[1]!.resolve(null);
  gates[0]!.resolve(null);
  const r = await running;
  assert.equal(r.ok, true, r.stderr);
  assert.deepEqual(r.value, [0, 10, 20]);
  assert.deepEqual(started, [0, 1, 2]);
  assert.deepEqual(r.calls.map((c) => c.status), ['ok', 'ok', 'ok']);
});

test('a call that takes time reports a duration covering it', async () => {
  let held = 0;
  const delayed = tool('delayed', async () => {
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 60));
    held = performance.now() - t0;
    return 'late';
  });
  const r = await run('await tools.delayed()', [delayed]);
  assert.equal(r.value, 'late');
  assert.ok(held > 50 && r.calls[0]!.durationMs >= held, `held ${held} ms, reported ${r.calls[0]!.durationMs} ms`);
});

test('a tool error result raises ToolError carrying the message; other errors keep their name', async () => {
  const failing = tool('failing', async () => {
    throw toolError('disk full');
  });
  const typed = tool('typed', async () => {
    throw new TypeError('wrong shape');
  });
  const thrower = tool('thrower', () => {
    throw new RangeError('thrown synchronously');
  });
  const r = await run(
    [
      'out = []',
      'for name in ["failing", "typed", "thrower"]:',
      '    try:',
      '        await tools[name]()',
      '    except ToolCallError as e:',
      '        out.append([type(e).__name__, str(e), isinstance(e, ToolError)])',
      'out',
    ].join('\n'),
    [failing, typed, thrower],
  );
  assert.equal(r.ok, true, r.stderr);
  assert.deepEqual(r.value, [
    ['ToolError', 'disk full', true],
    ['TypeError', 'wrong shape', false],
    ['RangeError', 'thrown synchronously', false],
  ]);
  assert.deepEqual(r.calls.map((c) => c.status), ['error', 'error', 'error']);
});

test('an uncaught ToolError fails the run as a script error', async () => {
  const failing = tool('failing', async () => {
    throw toolError('quota exceeded');
  });
  const r = await run('await tools.failing()', [failing]);
  assert.deepEqual([r.error?.kind, r.error?.name, r.error?.message], ['script', 'ToolError', 'quota exceeded']);
  assert.match(r.stderr, /^ToolError: quota exceeded$/m);
  assert.doesNotMatch(r.stderr, /bootstrap\.py|script_tools\.py/);
});

test('an unknown tool raises UnknownToolError naming the closest tools, as closestNames ranks them', async () => {
  const names = ['files--read', 'files--write', 'web--search', 'math'];
  const tools = names.map((n) => tool(n, async () => null));
  const r = await run('tools.files__raed', tools);
  assert.equal(r.error?.name, 'UnknownToolError');
  const expected = closestNames('files__raed', names).map((n) => `'${n}' (tools.${n.replace(/-/g, '_')})`);
  assert.equal(r.error?.message, `No tool named 'files__raed'. Closest: ${expected.join(', ')}`);
  assert.deepEqual(r.calls, []);
  const item = await run('tools["web-search"]', tools);
  assert.match(item.error?.message ?? '', /^No tool named 'web-search'\. Closest: 'web--search'/);
  const missing = await run('hasattr(tools, "nothing")', tools);
  assert.equal(missing.value, false);
});

test('an identifier two tools share is refused as ambiguous; each stays reachable by name', async () => {
  const a = tool('x--run', async () => 'dash');
  const b = tool('x..run', async () => 'dot');
  const r = await run('[await tools["x--run"](), await tools["x..run"]()]', [a, b]);
  assert.deepEqual(r.value, ['dash', 'dot']);
  const amb = await run('tools.x__run', [a, b]);
  assert.equal(amb.error?.name, 'UnknownToolError');
  assert.match(amb.error?.message ?? '', /ambiguous.*'x--run', 'x\.\.run'/);
});

test('the tool set can change between runs', async () => {
  const first = await run('await tools.x__run(n=1)', [echo]);
  assert.deepEqual(first.value, { echoed: { n: 1 } });
  const other = tool('other', async () => 'other');
  const second = await run('[await tools.other(), "x__run" in dir(tools)]', [other]);
  assert.deepEqual(second.value, ['other', false]);
});

test('helper globals are callable by identifier and not recorded as calls', async () => {
  const seen: unknown[] = [];
  const helper = tool('log-note', async (args) => (seen.push(args), 'noted'), 'global');
  const r = await run('[await log_note({"m": 1}), await tools.x__run()]', [helper, echo]);
  assert.deepEqual(r.value, ['noted', { echoed: null }]);
  assert.deepEqual(seen, [{ m: 1 }]);
  assert.deepEqual(r.calls.map((c) => c.name), ['x--run']);
  const gone = await run('log_note', [echo]);
  assert.equal(gone.error?.name, 'NameError');
});

test('arguments JSON cannot carry raise TypeError in the script and nothing is sent', async () => {
  let invoked = 0;
  const counting = tool('counting', async () => ++invoked);
  const r = await run('await tools.counting({"when": object()})', [counting]);
  assert.equal(r.error?.name, 'TypeError');
  assert.equal(invoked, 0);
  assert.deepEqual(r.calls, []);
});

test('a result JSON cannot carry is a TypeError in the script', async () => {
  const bigint = tool('bigint', async () => 10n);
  const r = await run('await tools.bigint()', [bigint]);
  assert.equal(r.error?.name, 'TypeError');
  assert.match(r.error?.message ?? '', /not JSON-serializable/);
  assert.deepEqual(r.calls.map((c) => c.status), ['error']);
});

test('calls still running when the script ends are cancelled and their signal aborted', async () => {
  const contexts: ToolCallContext[] = [];
  const entered = deferred();
  const hanging = tool('hanging', (_args, ctx) => {
    contexts.push(ctx);
    entered.resolve(null);
    return new Promise(() => {});
  });
  const r = await run('import asyncio\nt = asyncio.ensure_future(tools.hanging())\nawait asyncio.sleep(0)\nawait asyncio.sleep(0)\n"done"', [hanging]);
  await entered.promise;
  assert.equal(r.value, 'done');
  assert.deepEqual(r.calls.map((c) => [c.name, c.status]), [['hanging', 'cancelled']]);
  assert.equal(contexts[0]!.signal.aborted, true);
});

test('a late result for an ended run is dropped, never delivered into the next run', async () => {
  const stale = deferred();
  const staleStarted = deferred();
  const freshStarted = deferred();
  const fresh = deferred();
  const slow = tool('slow', (args) => {
    if ((args as { which: string }).which === 'stale') {
      staleStarted.resolve(null);
      return stale.promise;
    }
    freshStarted.resolve(null);
    return fresh.promise;
  });
  const first = await run('import asyncio\nasyncio.ensure_future(tools.slow(which="stale"))\nawait asyncio.sleep(0.001)', [slow]);
  await staleStarted.promise;
  assert.deepEqual(first.calls.map((c) => c.status), ['cancelled']);
  // The next run's first call has the same call id (1) as the stale one.
  const second = run('await tools.slow(which="fresh")', [slow]);
  await freshStarted.promise;
  stale.resolve('STALE');
  fresh.resolve('FRESH');
  const r = await second;
  assert.equal(r.value, 'FRESH');
  assert.deepEqual(r.calls.map((c) => c.status), ['ok']);
});

test('a second run while one is in progress is refused at once; the first completes', async () => {
  const gate = deferred();
  const held = tool('held', () => gate.promise);
  const first = run('await tools.held()', [held]);
  const second = await run('1', [held]);
  assert.equal(second.ok, false);
  assert.equal(second.error?.kind, 'sandbox');
  assert.match(second.error?.message ?? '', /busy/);
  assert.equal(runner.state, 'busy');
  gate.resolve('held-value');
  assert.equal((await first).value, 'held-value');
  assert.equal(runner.state, 'idle');
});

test('a tool called without await never runs, and the script is told so', async () => {
  let invoked = 0;
  const counting = tool('counting', async () => ++invoked);
  const r = await run('tools.counting()\ntools.counting()', [counting]);
  assert.equal(r.ok, true);
  assert.equal(invoked, 0);
  assert.equal('value' in r, false);
  assert.match(r.stderr, /coroutine 'tools\.counting' was never awaited/);
  assert.match(r.stderr, /the last expression is a coroutine that never ran; did you forget `await`\?/);
});

test("a helper global's maxArgumentChars cuts a long string, or a dict's strings, before the call crosses", async () => {
  const seen: unknown[] = [];
  const find: ToolBinding = { name: 'find', kind: 'global', maxArgumentChars: 100, invoke: async (args) => void seen.push(args) };
  const plain = tool('plain', async (args) => void seen.push(args));
  const r = await run('big = "q" * 1000000\nawait find(big)\nawait find(query=big, limit=3)\nawait find("short")\nawait tools.plain(big[:500])\nlen(big)', [find, plain]);
  assert.equal(r.ok, true, r.stderr);
  assert.equal(r.value, 1_000_000);
  // Tools have no bound: their arguments cross whole.
  assert.deepEqual(seen, ['q'.repeat(100), { query: 'q'.repeat(100), limit: 3 }, 'short', 'q'.repeat(500)]);
});
