/**
 * What a run resolves with: values, the error kinds (script, timeout, aborted, sandbox), stacks
 * that point into the script only, and TypeErrors for invalid arguments.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { execute, JsRuntime } from '../../../src/runtime/js/index.ts';
import { deferred, errorOf, global, tool, valueOf } from './helpers.ts';
import { ENGINES } from './engines.ts';

for (const engine of ENGINES) {
describe(`${engine} engine`, () => {
const runtime = new JsRuntime({ engine });
after(() => runtime.close());
const run = (code: string) => runtime.execute(code, { tools: [tool('echo')] });

describe('values', () => {
  test('a return value JSON cannot carry fails the script as a TypeError that says why', async () => {
    for (const [code, message] of [
      ['return () => 1', /^the script returned a function, which cannot be serialized as JSON: return data \(call the function, or return its result\)$/],
      ['return Symbol()', /^the script returned a symbol, which cannot be serialized as JSON/],
      ['const a = { b: {} }; a.b.a = a; return a', /^the return value cannot be serialized as JSON \(.*circular.*\): it holds a cycle \(an object that contains itself\); return a copy without the back reference$/is],
    ] as const) {
      const error = errorOf(await runtime.execute(code, { tools: [] }));
      assert.equal(error.name, 'TypeError', code);
      assert.match(error.message, message, code);
    }
    assert.equal(valueOf(await runtime.execute('return undefined', { tools: [] })), undefined);
  });

  test('the script is an async function body: await and return work', async () => {
    assert.deepEqual(valueOf(await run('const a = await tools.echo({ n: 2 });\nreturn { sum: a.n + 1, list: [1, "two", null, true] };')), {
      sum: 3,
      list: [1, 'two', null, true],
    });
    const none = await run('await tools.echo({});');
    assert.equal(valueOf(none), undefined);
    assert.ok('value' in none);
  });

  test('cyclic, function and symbol return values fail as script TypeErrors (a BigInt is converted)', async () => {
    const cases: Record<string, RegExp> = {
      'const a = {}; a.a = a; return a;': /cannot be serialized as JSON \(.*circular/is,
      'return () => 1;': /returned a function/,
      'return Symbol("s");': /returned a symbol/,
    };
    for (const [code, message] of Object.entries(cases)) {
      const error = errorOf(await run(code));
      assert.equal(error.kind, 'script', code);
      assert.equal(error.name, 'TypeError', code);
      assert.match(error.message, message, code);
    }
    const big = await run('return 10n;');
    assert.equal(valueOf(big), 10);
    assert.deepEqual((big as { converted?: unknown }).converted, [{ kind: 'BigInt', as: 'number', count: 1 }]);
    // Inside a value, functions drop out as JSON would have it.
    assert.deepEqual(valueOf(await run('return { f() {}, n: 1 };')), { n: 1 });
  });
});

describe('script errors', () => {
  test('carry name, message and a stack of script lines only', async () => {
    const error = errorOf(await run('const x = 1;\nfunction inner() {\n  throw new TypeError("bad " + x);\n}\ninner();'));
    assert.deepEqual([error.kind, error.name, error.message], ['script', 'TypeError', 'bad 1']);
    // QuickJS places a throw's column at the end of its expression, V8 at its start.
    const column = engine === 'v8' ? 9 : 32;
    assert.equal(error.stack, `TypeError: bad 1\n    at inner (script.js:3:${column})\n    at script.js:5:1`);
  });

  test('stacks never show host paths, the prelude or Node internals', async () => {
    const codes = [
      'await tools.echo({});\nnull.x;',
      'await tools.echo({}).then(() => { undefined.y(); });',
      'tools.nope;',
      'JSON.parse("{");',
      'function f() { return f(); }\nf();',
      'return new Error("inner").stack.length > 0 ? (() => { throw new Error(new Error("x").stack); })() : 0;',
    ];
    for (const code of codes) {
      const error = errorOf(await run(code));
      const text = `${error.message}\n${error.stack ?? ''}`;
      assert.doesNotMatch(text, /\/|node:|file:|prelude|main\.mjs/, `${code} → ${text}`);
    }
  });

  test('thrown non-errors are described', async () => {
    assert.deepEqual(errorOf(await run('throw "boom";')), { kind: 'script', message: 'boom' });
    assert.deepEqual(errorOf(await run('throw { code: 1 };')), { kind: 'script', message: '{ code: 1 }' });
  });

  test('syntax errors name the line', async () => {
    const error = errorOf(await run('const a = 1;\nconst b = ;\nreturn a;'));
    assert.deepEqual([error.kind, error.name], ['script', 'SyntaxError']);
    // The line, the column where the engine knows it, and the offending line with a caret under it.
    assert.match(error.stack ?? '', new RegExp(`^SyntaxError: ${error.message}\\n    at script\\.js:2(:\\d+)?\\n  2 \\| const b = ;`));
    const caret = /script\.js:2:(\d+)/.exec(error.stack ?? '');
    if (caret) assert.ok((error.stack ?? '').endsWith(`\n    | ${' '.repeat(Number(caret[1]) - 1)}^`), error.stack);
    const unclosed = errorOf(await run('const a = [1,\n2'));
    assert.match(unclosed.message, /at the end of the script/);
    assert.match(unclosed.stack ?? '', /at script\.js:2:2\n  2 \| 2\n    \|  \^$/);
  });
});

describe('aborted', () => {
  test('a signal aborted before the run starts', async () => {
    const result = await runtime.execute('return 1', { tools: [], signal: AbortSignal.abort(new Error('user left')) });
    assert.deepEqual(errorOf(result), { kind: 'aborted', message: 'the run was aborted: user left' });
  });

  test('a signal aborted during the run ends it and cancels its calls', async () => {
    const controller = new AbortController();
    const started = deferred();
    const wait = tool('wait', () => {
      started.resolve(undefined);
      return new Promise(() => {});
    });
    const running = runtime.execute('await tools.wait({});', { tools: [wait], signal: controller.signal });
    await started.promise;
    controller.abort();
    const result = await running;
    assert.equal(errorOf(result).kind, 'aborted');
    assert.deepEqual(result.calls.map((c) => c.status), ['cancelled']);
  });

  test('a signal aborted while the run waits for a process; that process serves the next run', async () => {
    const cold = new JsRuntime({ engine, poolSize: 0, pool: { minProcesses: 0 } });
    try {
      const controller = new AbortController();
      const waiting = cold.execute('return 1', { tools: [], signal: controller.signal });
      controller.abort();
      assert.equal(errorOf(await waiting).kind, 'aborted');
      assert.equal(valueOf(await cold.execute('return 2', { tools: [] })), 2);
      const { processesStarted, processesKilled } = cold.stats();
      assert.equal(processesKilled, 0);
      // QuickJS threads keep one idle thread in reserve once one is ready: at most one more.
      assert.ok(processesStarted <= (engine === 'quickjs' ? 2 : 1), `started ${processesStarted}`);
    } finally {
      await cold.close();
    }
  });

  test('close() aborts runs in progress; later runs are refused as aborted', async () => {
    const closing = new JsRuntime({ engine, poolSize: 0 });
    const started = deferred();
    const running = closing.execute('await tools.wait({});', {
      tools: [tool('wait', () => (started.resolve(undefined), new Promise(() => {})))],
    });
    await started.promise;
    await closing.close();
    assert.deepEqual(errorOf(await running), { kind: 'aborted', message: 'the runtime was closed' });
    assert.deepEqual(errorOf(await closing.execute('return 1', { tools: [] })), { kind: 'aborted', message: 'the runtime is closed' });
  });
});

describe('sandbox failures', () => {
  const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.mjs`, import.meta.url));
  const rogue = async (name: string) => {
    // Process entries: their thread counterparts are in thread-faults.test.ts.
    const broken = new JsRuntime({ engine, poolSize: 0, sandboxEntry: fixture(name), ...(engine === 'quickjs' ? { quickjsThreads: false } : {}) });
    try {
      return await broken.execute('return await tools.echo({})', { tools: [tool('echo')], timeoutMs: 10_000 });
    } finally {
      await broken.close();
    }
  };
  const expected: Record<string, RegExp> = {
    'rogue-garbage': /^broken sandbox bridge: frame of \d+ bytes/,
    'rogue-malformed': /^broken sandbox bridge: out has a malformed call/,
    'rogue-unknown-tool': /^broken sandbox bridge: call to unknown tool secret/,
    'rogue-wrong-run': /^broken sandbox bridge: (unexpected done message|done for run \d+, which is not running in this process)/,
    'rogue-exit': /^the sandbox process exited unexpectedly \(exit code 3\)/,
    'rogue-never-ready': /^the sandbox could not start: the sandbox process exited unexpectedly/,
  };
  for (const [name, message] of Object.entries(expected)) {
    test(`${name}: fails the run as sandbox, without hanging`, async () => {
      const error = errorOf(await rogue(name));
      assert.equal(error.kind, 'sandbox');
      assert.match(error.message, message);
    });
  }
});

describe('invalid arguments', () => {
  const bad = (tools: unknown, limits?: unknown) =>
    runtime.execute('return 1', { tools: tools as never, ...(limits ? { limits: limits as never } : {}) });
  test('reject with a TypeError naming the problem', async () => {
    await assert.rejects(runtime.execute(42 as never, { tools: [] }), /code must be a string/);
    await assert.rejects(bad('nope'), /options\.tools must be an array/);
    await assert.rejects(bad([{ name: '', invoke() {} }]), /options\.tools\[0\]\.name must be a non-empty string/);
    await assert.rejects(bad([{ name: 'x' }]), /options\.tools\[0\]\.invoke must be a function/);
    await assert.rejects(bad([tool('x'), tool('x')]), /tool "x" is bound twice/);
    await assert.rejects(bad([global('class', async () => 1)]), /reserved word class/);
    await assert.rejects(bad([global('console', async () => 1)]), /would shadow the built-in console/);
    await assert.rejects(bad([], { timeoutMs: -1 }), /options\.limits\.timeoutMs must be greater than 0/);
    await assert.rejects(bad([], { heapMb: 8 }), /heapMb must be at least 16/);
    await assert.rejects(bad([], { maxCalls: 1.5 }), /maxCalls must be a whole number/);
    await assert.rejects(bad([], { speed: 1 }), /speed is not a limit/);
    assert.throws(() => new JsRuntime({ poolSize: -1 }), /poolSize/);
    assert.throws(() => new JsRuntime({ limits: { maxLogBytes: 0 } }), /limits\.maxLogBytes must be at least 1/);
  });
});

describe('execute()', () => {
  test('runs on a shared default runtime', async () => {
    assert.equal(valueOf(await execute('return await tools.echo(5) * 2;', { tools: [tool('echo')] })), 10);
  });
});
});
}
