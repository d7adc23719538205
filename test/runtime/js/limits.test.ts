/**
 * Limits and faults: spins, memory bombs, deep recursion, size caps, scripts that wait on
 * nothing. Each ends the run with a clear error; the host survives and the runtime keeps serving.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import type { JsLimits } from '../../../src/runtime/js/limits.ts';
import { assertHostUnpolluted, deferred, errorOf, tool, valueOf } from './helpers.ts';
import { ENGINES } from './engines.ts';

for (const engine of ENGINES) {
describe(`${engine} engine`, () => {
const runtime = new JsRuntime({ engine });
after(() => runtime.close());
const tools = [tool('echo')];

describe('wall-clock timeout', () => {
  const spins: Record<string, string> = {
    'a synchronous spin': 'while (true) {}',
    'a microtask spin': 'while (true) await null;',
    'a promise-chain spin': 'const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {});',
    'a spin inside a tool callback': 'await tools.echo({}).then(() => { for (;;) {} });',
    'a spin in a getter the prelude reads': 'return { get x() { for (;;) {} } };',
  };
  for (const [name, code] of Object.entries(spins)) {
    test(`stops ${name}`, async () => {
      const started = performance.now();
      const error = errorOf(await runtime.execute(code, { tools, timeoutMs: 150 }));
      assert.equal(error.kind, 'timeout');
      assert.match(error.message, /150 ms/);
      assert.ok(performance.now() - started < 5_000, 'ended promptly');
    });
  }

  test('the runtime keeps serving after timeouts', async () => {
    assert.equal(valueOf(await runtime.execute('return 7', { tools })), 7);
  });
});

describe('memory', () => {
  const small = new JsRuntime({ engine, poolSize: 0, limits: { heapMb: 32, timeoutMs: 20_000 } });
  after(() => small.close());
  const bombs: Record<string, string> = {
    'a dense array that keeps growing': 'const a = []; for (;;) a.push({ n: a.length, s: "abc" + a.length });',
    'a sparse array made dense by fill': 'new Array(1e9).fill(0);',
    'an object with ever more keys': 'const o = {}; for (let i = 0; ; i++) o["k" + i] = i;',
    'flattened doubling strings': 'let s = "ab"; const keep = []; for (;;) { s = s + s; keep.push(s.slice(1)); }',
  };
  for (const [name, code] of Object.entries(bombs)) {
    test(`${name} fails the run as sandbox: out of memory, and the host lives`, async () => {
      const error = errorOf(await small.execute(code, { tools }));
      assert.equal(error.kind, 'sandbox');
      assert.match(error.message, /out of memory \(heap limit 32 MiB\)/);
    });
  }

  test('sparse arrays and long ropes within the limit are fine', async () => {
    const value = valueOf(await small.execute('const a = []; a[2 ** 32 - 2] = 1; return [a.length, "x".repeat(2 ** 20).length];', { tools }));
    assert.deepEqual(value, [2 ** 32 - 1, 2 ** 20]);
  });

  test('deep recursion is a catchable RangeError inside the script', async () => {
    const caught = valueOf(await runtime.execute('function f(n) { return f(n + 1) + 1; } try { f(0); } catch (e) { return [e instanceof RangeError, e.message]; }', { tools }));
    assert.deepEqual(caught, [true, 'Maximum call stack size exceeded']);
    const error = errorOf(await runtime.execute('function f() { return f(); }\nf();', { tools }));
    assert.equal(error.kind, 'script');
    assert.equal(error.name, 'RangeError');
  });
});

describe('waiting on nothing', () => {
  test('a promise nothing can settle fails at once, not at the timeout', async () => {
    const started = performance.now();
    const error = errorOf(await runtime.execute('await new Promise(() => {}); return 1;', { tools, timeoutMs: 20_000 }));
    assert.equal(error.kind, 'script');
    assert.match(error.message, /waiting for a promise that nothing can settle/);
    assert.ok(performance.now() - started < 2_000);
  });

  test('after the last call settles, a dangling await fails at once too', async () => {
    const error = errorOf(await runtime.execute('await tools.echo({}); await new Promise(() => {});', { tools, timeoutMs: 20_000 }));
    assert.match(error.message, /nothing can settle/);
  });

  test('a pending call keeps the run alive', async () => {
    const started = deferred();
    const answer = deferred();
    const slow = tool('slow', () => {
      started.resolve(undefined);
      return answer.promise;
    });
    const running = runtime.execute('return await tools.slow({});', { tools: [slow] });
    await started.promise;
    answer.resolve('done');
    assert.equal(valueOf(await running), 'done');
  });
});

describe('size caps', () => {
  test('console output over maxLogBytes fails the run, even when caught', async () => {
    const error = errorOf(await runtime.execute('try { for (;;) console.log("x".repeat(100)); } catch {} return 1;', {
      tools,
      limits: { maxLogBytes: 1_000 },
    }));
    assert.equal(error.kind, 'script');
    assert.equal(error.name, 'RangeError');
    assert.match(error.message, /console output exceeded 1000 bytes \(limit maxLogBytes\)/);
  });

  test('output up to maxLogBytes is kept in order with levels', async () => {
    const result = await runtime.execute('console.log("a"); console.warn("b"); return 1;', { tools, limits: { maxLogBytes: 2 } });
    assert.deepEqual(result.logs, [{ level: 'log', message: 'a' }, { level: 'warn', message: 'b' }]);
  });

  test('a return value over maxReturnBytes fails the run', async () => {
    const error = errorOf(await runtime.execute('return "é".repeat(600);', { tools, limits: { maxReturnBytes: 1_000 } }));
    assert.equal(error.name, 'RangeError');
    assert.match(error.message, /the return value is 1202 bytes, over the 1000-byte limit \(maxReturnBytes\)/);
  });

  test('log entries over maxLogEntries fail the run, even when caught; the first ones are kept', async () => {
    const result = await runtime.execute('try { for (;;) console.log(); } catch {} return 1;', { tools, limits: { maxLogEntries: 3 } });
    assert.deepEqual(errorOf(result), { kind: 'script', name: 'RangeError', message: 'the script wrote more than 3 log entries (limit maxLogEntries)' });
    assert.equal(result.logs.length, 3);
  });

  test('maxDepth applies to the return value at its configured depth', async () => {
    assert.deepEqual(valueOf(await runtime.execute('return [[[1]]];', { tools, limits: { maxDepth: 3 } })), [[[1]]]);
    const error = errorOf(await runtime.execute('return [[[[1]]]];', { tools, limits: { maxDepth: 3 } }));
    assert.equal(error.message, 'the return value is nested deeper than 3 levels (limit maxDepth)');
  });

  test('maxInFlightBytes frees the bytes of settled calls', async () => {
    const value = valueOf(await runtime.execute(
      `const out = [];
       for (let i = 0; i < 5; i++) out.push(await tools.echo({ s: 'x'.repeat(90) }).then(() => 'ok', (e) => e.message));
       const both = await Promise.allSettled([tools.echo({ s: 'x'.repeat(90) }), tools.echo({ s: 'x'.repeat(90) })]);
       return [out, both.map((r) => r.status)];`,
      { tools, limits: { maxInFlightBytes: 150 } },
    ));
    assert.deepEqual(value, [['ok', 'ok', 'ok', 'ok', 'ok'], ['fulfilled', 'rejected']]);
  });
});

describe('every limit, set low, ends the run with its own error', () => {
  // Keyed by every field of JsLimits: a new limit without a case here fails the typecheck.
  const cases: Record<keyof JsLimits, { limits: Partial<JsLimits>; code: string; error: { kind: string; name?: string; message: string } }> = {
    timeoutMs: { limits: { timeoutMs: 100 }, code: 'for (;;) {}', error: { kind: 'timeout', message: 'the script did not finish within its time limit of 100 ms' } },
    heapMb: { limits: { heapMb: 32 }, code: 'const a = []; for (;;) a.push("abc" + a.length);', error: { kind: 'sandbox', message: 'the script ran out of memory (heap limit 32 MiB)' } },
    maxCalls: { limits: { maxCalls: 2 }, code: 'for (let i = 0; i < 3; i++) await tools.echo(i);', error: { kind: 'script', name: 'RangeError', message: 'the script made more than 2 tool calls (limit maxCalls)' } },
    maxInFlight: {
      limits: { maxInFlight: 2 },
      code: 'await Promise.all([tools.echo(1), tools.echo(2), tools.echo(3)]);',
      error: { kind: 'script', name: 'RangeError', message: 'tools.echo: 2 calls are already in flight (limit maxInFlight); await some before starting more' },
    },
    maxArgsBytes: {
      limits: { maxArgsBytes: 10 },
      code: 'await tools.echo("x".repeat(9));',
      error: { kind: 'script', name: 'RangeError', message: 'the arguments of tools.echo are 11 bytes, over the 10-byte limit (maxArgsBytes)' },
    },
    maxResultBytes: {
      limits: { maxResultBytes: 10 },
      code: 'await tools.echo("x".repeat(9));',
      error: { kind: 'script', name: 'RangeError', message: 'the result of tool echo is 11 bytes, over the 10-byte limit (maxResultBytes)' },
    },
    maxInFlightBytes: {
      limits: { maxInFlightBytes: 20 },
      code: 'await Promise.all([tools.echo("12345678"), tools.echo("12345678"), tools.echo("12345678")]);',
      error: {
        kind: 'script', name: 'RangeError',
        message: 'tools.echo: its 10 bytes of arguments would put more than the 20-byte limit (maxInFlightBytes) in flight; await some calls before starting more',
      },
    },
    maxLogBytes: { limits: { maxLogBytes: 10 }, code: 'console.log("x".repeat(11));', error: { kind: 'script', name: 'RangeError', message: 'console output exceeded 10 bytes (limit maxLogBytes)' } },
    maxLogEntries: { limits: { maxLogEntries: 2 }, code: 'console.log(); console.log(); console.log();', error: { kind: 'script', name: 'RangeError', message: 'the script wrote more than 2 log entries (limit maxLogEntries)' } },
    maxDepth: { limits: { maxDepth: 2 }, code: 'return [[[1]]];', error: { kind: 'script', name: 'RangeError', message: 'the return value is nested deeper than 2 levels (limit maxDepth)' } },
    maxReturnBytes: { limits: { maxReturnBytes: 10 }, code: 'return "x".repeat(9);', error: { kind: 'script', name: 'RangeError', message: 'the return value is 11 bytes, over the 10-byte limit (maxReturnBytes)' } },
  };
  for (const [key, { limits, code, error }] of Object.entries(cases)) {
    test(key, async () => {
      const got = errorOf(await runtime.execute(code, { tools, limits }));
      assert.deepEqual({ kind: got.kind, name: got.name, message: got.message }, { name: undefined, ...error });
      // The same script runs to the end under the defaults: the error is this limit's alone.
      if (key !== 'timeoutMs' && key !== 'heapMb') assert.equal((await runtime.execute(code, { tools })).ok, true);
    });
  }
});

describe('the host', () => {
  test('survived every fault above unpolluted', async () => {
    assertHostUnpolluted();
    assert.equal(valueOf(await runtime.execute('return "still here"', { tools })), 'still here');
  });
});
});
}
