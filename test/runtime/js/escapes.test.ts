/**
 * The escape matrix: every route a script could take out of its context. Each payload tries to
 * reach `process`; the test asserts how it is stopped, and the host survives unpolluted.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { assertHostUnpolluted, errorOf, tool, valueOf } from './helpers.ts';

const BLOCKED = 'EvalError: Code generation from strings disallowed for this context';

/** Wraps an expression that should evaluate to a Function constructor; reports what calling it does. */
const attempt = (ctorExpression: string) => `
  let ctor;
  try { ctor = ${ctorExpression}; } catch (e) { return 'unreachable: ' + e.name; }
  if (typeof ctor !== 'function') return 'not a function: ' + typeof ctor;
  try { return 'ESCAPED: ' + typeof ctor('return process')(); } catch (e) { return e.name + ': ' + e.message; }
`;

const tools = [
  tool('echo'),
  tool('obj', async () => ({ nested: { list: [1, 2] } })),
  tool('fail', async () => {
    const error = new Error('tool failed');
    error.name = 'ToolError';
    throw error;
  }),
];

const configurations = [
  { engine: 'quickjs', fallbackContext: false, label: 'QuickJS' },
  { engine: 'v8', fallbackContext: false, label: 'V8, DONT_CONTEXTIFY global' },
  { engine: 'v8', fallbackContext: true, label: 'V8, fallback contextified global' },
] as const;
for (const { engine, fallbackContext, label } of configurations) {
  describe(`escape matrix (${label})`, () => {
    const runtime = new JsRuntime({ engine, fallbackContext });
    after(() => runtime.close());
    const run = (code: string) => runtime.execute(code, { tools });

    const constructorRoutes: Record<string, string> = {
      'this.constructor.constructor': 'this.constructor.constructor',
      'globalThis.constructor.constructor': 'globalThis.constructor.constructor',
      'a function literal': '(function () {}).constructor',
      'an async function': '(async function () {}).constructor',
      'a generator function': '(function* () {}).constructor',
      'an async generator function': '(async function* () {}).constructor',
      'a tool function': 'tools.echo.constructor',
      'the tools object': 'Object.getPrototypeOf(tools.echo).constructor',
      'a console method': 'console.log.constructor',
      'a tool result': '(await tools.obj({})).nested.list.constructor.constructor',
      'a tool error': '(await tools.fail({}).catch((e) => e)).constructor.constructor',
      'an engine error': '(() => { try { null.x; } catch (e) { return e.constructor.constructor; } })()',
      'an import() rejection': '(await import("node:fs").catch((e) => e)).constructor.constructor',
      'a rejected call': '(await tools.echo(1n).catch((e) => e)).constructor.constructor',
      'an unknown-tool error': '(() => { try { tools.nope; } catch (e) { return e.constructor.constructor; } })()',
    };
    for (const [route, expression] of Object.entries(constructorRoutes)) {
      test(`the Function constructor through ${route} cannot compile code`, async () => {
        assert.equal(valueOf(await run(attempt(expression))), BLOCKED);
      });
    }

    test('eval, Function, WebAssembly, shared memory, typed arrays and weak references are gone or inert', async () => {
      const value = valueOf(await run(`
        const kinds = {};
        for (const name of ['eval', 'WebAssembly', 'SharedArrayBuffer', 'Atomics', 'ArrayBuffer', 'Uint8Array',
          'DataView', 'FinalizationRegistry', 'process', 'require', 'module', 'fetch', 'setTimeout', 'setImmediate',
          'queueMicrotask', 'Buffer', 'WeakRef', 'performance']) kinds[name] = typeof globalThis[name];
        let fn;
        try { fn = Function('return 1')(); } catch (e) { fn = e.name; }
        let fnNew;
        try { fnNew = new Function('return 1')(); } catch (e) { fnNew = e.name; }
        return { kinds, fn, fnNew };
      `));
      assert.deepEqual(value, {
        kinds: {
          eval: 'undefined', WebAssembly: 'undefined', SharedArrayBuffer: 'undefined', Atomics: 'undefined',
          ArrayBuffer: 'undefined', Uint8Array: 'undefined', DataView: 'undefined', FinalizationRegistry: 'undefined',
          process: 'undefined', require: 'undefined', module: 'undefined', fetch: 'undefined', setTimeout: 'undefined',
          setImmediate: 'undefined', queueMicrotask: 'undefined', Buffer: 'undefined', WeakRef: 'undefined',
          performance: 'undefined',
        },
        fn: 'EvalError',
        fnNew: 'EvalError',
      });
    });

    test('dynamic import() rejects with an error of the script context', async () => {
      const value = valueOf(await run(`
        const e = await import('node:child_process').then(() => null, (error) => error);
        return { isError: e instanceof Error, message: e.message };
      `));
      assert.deepEqual(value, { isError: true, message: 'import() is not available in the sandbox' });
    });

    // V8 only: its call sites expose frames of other realms. QuickJS call sites only reach this VM.
    test('Error.prepareStackTrace is locked: call sites never reach the script', { skip: engine === 'quickjs' && 'V8 call sites only' }, async () => {
      const value = valueOf(await run(`
        let called = false;
        let assignment = 'ok';
        try { Error.prepareStackTrace = () => { called = true; return []; }; } catch (e) { assignment = e.name; }
        let redefine = 'ok';
        try { Object.defineProperty(Error, 'prepareStackTrace', { value: () => [] }); } catch (e) { redefine = e.name; }
        let rebind = 'ok';
        try { globalThis.Error = { prepareStackTrace: () => { called = true; } }; } catch (e) { rebind = e.name; }
        await tools.echo({});
        const stack = new Error('probe').stack;
        return { called, assignment, redefine, rebind, type: typeof stack, first: stack.split('\\n')[0] };
      `));
      assert.deepEqual(value, { called: false, assignment: 'ok', redefine: 'TypeError', rebind: 'ok', type: 'string', first: 'Error: probe' });
    });

    test('a stack overflow inside the bridge still yields an error of the script context', async () => {
      const value = valueOf(await run(`
        const errors = [];
        function dive() {
          try { dive(); } catch {}
          // Unwinding from the stack limit: every depth enters the bridge with a little more room,
          // so some attempts overflow inside the prelude and some inside the bridge itself.
          try { console.log(''); } catch (e) { errors.push(e); }
        }
        dive();
        return {
          caught: errors.length > 0,
          inBridge: errors.some((e) => e.message.startsWith('the sandbox bridge failed')),
          allOfThisRealm: errors.every((e) => e instanceof Error && e.constructor.constructor === Function),
          compiles: errors.map((e) => { try { e.constructor.constructor('return process')(); return 'yes'; } catch (x) { return x.name; } })
            .every((outcome) => outcome === 'EvalError'),
        };
      `));
      // Under QuickJS the bridge is a function of the VM itself: an overflow there is the VM's own RangeError.
      assert.deepEqual(value, { caught: true, inBridge: engine === 'v8', allOfThisRealm: true, compiles: true });
    });

    test('a patched Promise.prototype.then neither stalls nor leaks the run', async () => {
      const value = valueOf(await run(`
        const seen = [];
        Promise.prototype.then = function (onOk, onErr) { seen.push(typeof onOk); throw new Error('patched'); };
        const a = await tools.echo({ a: 1 });
        return { a, seenTypes: [...new Set(seen)] };
      `));
      assert.deepEqual((value as { a: unknown }).a, { a: 1 });
    });

    test('toJSON cannot be planted on the frozen Object.prototype; the host is untouched', async () => {
      const seen: unknown[] = [];
      const result = await runtime.execute(
        `Object.prototype.toJSON = function () { return 'patched'; };
         const back = await tools.spy({ a: 1 });
         return { back };`,
        { tools: [tool('spy', async (args) => { seen.push(args); return { plain: true }; })] },
      );
      // The sloppy assignment fails silently: the script's serializer is the built-in one.
      assert.deepEqual(valueOf(result), { back: { plain: true } });
      assert.deepEqual(seen, [{ a: 1 }]);
      assert.equal(JSON.stringify({ host: 1 }), '{"host":1}');
    });

    test('thenables handed out are resolved inside the context or fail fast, never by the host', async () => {
      assert.equal(valueOf(await run('return { then(resolve) { resolve(42); } };')), 42);
      const stalled = errorOf(await run('return { then() {} };'));
      assert.equal(stalled.kind, 'script');
      assert.match(stalled.message, /nothing can settle/);
      const seen: unknown[] = [];
      valueOf(await runtime.execute('return await tools.spy({ then(r) { r(1); }, x: 1 });', {
        tools: [tool('spy', async (args) => { seen.push(args); return null; })],
      }));
      assert.deepEqual(seen, [{ x: 1 }]);
    });

    test('Symbol.for does not carry values from one run to the next', async () => {
      valueOf(await run('globalThis.mark = Symbol.for("toolcell-secret"); Symbol.for("toolcell-secret").description; return 1;'));
      const value = valueOf(await run('return [Symbol.keyFor(Symbol.for("x")), typeof globalThis.mark, Symbol.for("a") === Symbol.for("a")];'));
      assert.deepEqual(value, ['x', 'undefined', true]);
    });

    test('prototype pollution does not survive into the next run', async () => {
      valueOf(await run('Object.prototype.polluted = 1; Array.prototype.push = null; globalThis.leftover = 1; return 1;'));
      assert.deepEqual(valueOf(await run('return [typeof ({}).polluted, typeof [].push, typeof leftover];')), ['undefined', 'function', 'undefined']);
    });

    test('script functions called by the prelude see no caller', async () => {
      const value = valueOf(await run(`
        const seen = {};
        const probe = { toJSON: function toJSON() { seen.toJSON = toJSON.caller; return 1; } };
        await tools.echo(probe);
        const error = new Error('x');
        Object.defineProperty(error, 'stack', { get: function stack() { seen.stack = stack.caller; return 'x'; } });
        console.log(error);
        return { toJSON: seen.toJSON === null ? 'null' : typeof seen.toJSON, stack: seen.stack === null ? 'null' : typeof seen.stack };
      `));
      // QuickJS has no `caller` for strict functions' callers: undefined, never the prelude.
      const none = engine === 'v8' ? 'null' : 'undefined';
      assert.deepEqual(value, { toJSON: none, stack: none });
    });
  });
}

describe('the host', () => {
  test('is unpolluted after the whole matrix', () => {
    assertHostUnpolluted();
  });
});
