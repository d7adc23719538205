/**
 * Tool calls: JSON in and out, errors with their names, call records in start order,
 * cancellation through the tool's signal, per-call limits, and the pausable clock.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { JsonText } from '../../../src/runtime/json-text.ts';
import type { ToolCallContext } from '../../../src/runtime/types.ts';
import { deferred, errorOf, global, tool, valueOf } from './helpers.ts';
import { ENGINES } from './engines.ts';

for (const engine of ENGINES) {
describe(`${engine} engine`, () => {
const runtime = new JsRuntime({ engine });
after(() => runtime.close());

describe('arguments and results', () => {
  test('cross as JSON: dates become strings, undefined fields vanish, extra arguments are ignored', async () => {
    const seen: unknown[] = [];
    const spy = tool('spy', async (args) => {
      seen.push(args);
      return { when: new Date(0), gone: undefined, list: [1, undefined] };
    });
    const value = valueOf(await runtime.execute('return await tools.spy({ d: new Date(0), u: undefined, n: null }, "ignored");', { tools: [spy] }));
    assert.deepEqual(seen, [{ d: '1970-01-01T00:00:00.000Z', n: null }]);
    assert.deepEqual(value, { when: '1970-01-01T00:00:00.000Z', list: [1, null] });
  });

  test('no argument arrives as undefined; an undefined result arrives as undefined', async () => {
    const seen: unknown[] = [];
    const value = valueOf(await runtime.execute('const r = await tools.spy(); return r === undefined;', {
      tools: [tool('spy', async (args) => void seen.push(args))],
    }));
    assert.equal(value, true);
    assert.deepEqual(seen, [undefined]);
  });

  test('arguments that are not JSON reject inside the script and make no call (a BigInt is given its JSON form)', async () => {
    const result = await runtime.execute(
      'const a = {}; a.self = a; const out = []; for (const args of [a]) { try { await tools.echo(args); } catch (e) { out.push(e.name + ": " + e.message); } } return out;',
      { tools: [tool('echo')] },
    );
    const value = valueOf(result) as string[];
    assert.equal(value.length, 1);
    assert.match(value[0]!, /^TypeError: the arguments of tools\.echo are not JSON-serializable: .*circular/);
    assert.deepEqual(result.calls, []);
    // guest-core.js's toJSON forms apply to arguments too: 1n arrives as 1.
    const seen: unknown[] = [];
    await runtime.execute('await tools.spy({ n: 1n })', { tools: [tool('spy', async (args) => void seen.push(args))] });
    assert.deepEqual(seen, [{ n: 1 }]);
  });

  test('a result that is not JSON rejects the call as a TypeError', async () => {
    const result = await runtime.execute('try { await tools.bad({}); } catch (e) { return e.name + ": " + e.message; }', {
      tools: [tool('bad', async () => ({ n: 1n }))],
    });
    assert.match(valueOf(result) as string, /^TypeError: tool bad returned a value that is not JSON-serializable/);
    assert.equal(result.calls[0]!.status, 'error');
  });
});

describe('errors', () => {
  test('a rejected invoke surfaces with the same name and message, as an Error of the script', async () => {
    const failing = (name: string) =>
      tool(name, async () => {
        const error = name === 'type' ? new TypeError('wrong type') : new Error('tool said no');
        if (name === 'toolError') error.name = 'ToolError';
        throw error;
      });
    const value = valueOf(await runtime.execute(
      `const out = [];
       for (const name of ['toolError', 'type']) {
         try { await tools[name]({}); } catch (e) { out.push([e.name, e.message, e instanceof Error, e instanceof TypeError]); }
       }
       return out;`,
      { tools: [failing('toolError'), failing('type')] },
    ));
    assert.deepEqual(value, [
      ['ToolError', 'tool said no', true, false],
      ['TypeError', 'wrong type', true, true],
    ]);
  });

  test('a non-Error rejection and a synchronous throw are reported too', async () => {
    const value = valueOf(await runtime.execute(
      'const out = []; for (const t of [tools.str, tools.sync]) { try { await t({}); } catch (e) { out.push([e.name, e.message]); } } return out;',
      {
        tools: [
          tool('str', () => Promise.reject('plain string')),
          tool('sync', () => {
            throw new RangeError('thrown synchronously');
          }),
        ],
      },
    ));
    assert.deepEqual(value, [['Error', 'plain string'], ['RangeError', 'thrown synchronously']]);
  });

  test('an uncaught tool error fails the run with that error', async () => {
    const error = errorOf(await runtime.execute('const x = 1;\nawait tools.fail({});', {
      tools: [
        tool('fail', async () => {
          throw Object.assign(new Error('bad input'), { name: 'ToolError' });
        }),
      ],
    }));
    assert.deepEqual([error.kind, error.name, error.message], ['script', 'ToolError', 'bad input']);
    assert.match(error.stack ?? '', /^ToolError: bad input/);
  });
});

describe('call records', () => {
  test('are in start order with status and duration; globals are not recorded', async () => {
    const result = await runtime.execute(
      `const a = tools.slow({});
       const b = tools.fast({});
       await helper({});
       await b;
       try { await tools.fail({}); } catch {}
       return await a;`,
      {
        tools: [
          tool('slow', async () => new Promise((resolve) => setTimeout(() => resolve('slow'), 20))),
          tool('fast', async () => 'fast'),
          tool('fail', async () => {
            throw new Error('no');
          }),
          global('helper', async () => 'helped'),
        ],
      },
    );
    assert.equal(valueOf(result), 'slow');
    assert.deepEqual(result.calls.map((c) => [c.name, c.status]), [['slow', 'ok'], ['fast', 'ok'], ['fail', 'error']]);
    assert.ok(result.calls[0]!.durationMs >= 15, `slow took ${result.calls[0]!.durationMs} ms`);
    assert.ok(result.calls.every((c) => typeof c.durationMs === 'number' && c.durationMs >= 0));
  });

  test('a call still running when the script returns is aborted through its signal and recorded as cancelled', async () => {
    const started = deferred<ToolCallContext>();
    const aborted = deferred<unknown>();
    const hang = tool('hang', (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason));
      started.resolve(ctx);
      return new Promise(() => {});
    });
    const result = await runtime.execute('tools.hang({}); await tools.echo({}); return "left it running";', { tools: [hang, tool('echo')] });
    assert.equal(valueOf(result), 'left it running');
    assert.deepEqual(result.calls.map((c) => [c.name, c.status]), [['hang', 'cancelled'], ['echo', 'ok']]);
    const reason = (await aborted.promise) as Error;
    assert.equal(reason.name, 'AbortError');
    assert.equal((await started.promise).signal.aborted, true);
  });

  test('each call has its own signal: only calls still running are aborted', async () => {
    const contexts: ToolCallContext[] = [];
    const keep = tool('keep', (_args, ctx) => {
      contexts.push(ctx);
      return contexts.length === 1 ? Promise.resolve('done') : new Promise(() => {});
    });
    const result = await runtime.execute('await tools.keep({}); tools.keep({}); return 1;', { tools: [keep] });
    assert.deepEqual(result.calls.map((c) => c.status), ['ok', 'cancelled']);
    // Read only now, after the run: the signal reflects what happened to that call.
    assert.deepEqual(contexts.map((c) => c.signal.aborted), [false, true]);
    const { pauseClock } = contexts[0]!; // usable detached
    pauseClock()();
  });

  test('a call that finishes after the run ended is ignored', async () => {
    const release = deferred();
    const late = tool('late', () => release.promise);
    const result = await runtime.execute('tools.late({}); return 1;', { tools: [late] });
    release.resolve('too late');
    assert.equal(result.calls[0]!.status, 'cancelled');
    assert.equal(valueOf(await runtime.execute('return 2', { tools: [] })), 2);
  });
});

describe('per-call limits', () => {
  test('maxArgsBytes rejects the call inside the script', async () => {
    const result = await runtime.execute('try { await tools.echo({ s: "x".repeat(100) }); } catch (e) { return [e.name, e.message]; }', {
      tools: [tool('echo')],
      limits: { maxArgsBytes: 50 },
    });
    assert.deepEqual(valueOf(result), ['RangeError', 'the arguments of tools.echo are 108 bytes, over the 50-byte limit (maxArgsBytes)']);
    assert.deepEqual(result.calls, []);
  });

  test('maxResultBytes rejects the call inside the script', async () => {
    const result = await runtime.execute('try { await tools.big({}); } catch (e) { return [e.name, e.message]; }', {
      tools: [tool('big', async () => 'ü'.repeat(40))],
      limits: { maxResultBytes: 50 },
    });
    assert.deepEqual(valueOf(result), ['RangeError', 'the result of tool big is 82 bytes, over the 50-byte limit (maxResultBytes)']);
    assert.equal(result.calls[0]!.status, 'error');
  });

  // A tool's text that the VM parses itself (src/runtime/json-text.ts): the host neither parses
  // nor serializes it; the script sees what code_execution's rule gives (JSON, else the text).
  test('a JsonText answer is its JSON parse in the script, or the text itself when it is not JSON', async () => {
    const answers: Record<string, string> = {
      json: ' {"a":[1,2,{"b":"ü\\u0000"}],"n":1e300}',
      array: '[true,null,"x"]',
      looks: '{"a":1,} and more',
      empty: '[',
    };
    const result = await runtime.execute('const out = {}; for (const k of ["json", "array", "looks", "empty"]) out[k] = await tools.text({ k }); return out;', {
      tools: [tool('text', async (args) => new JsonText(answers[(args as { k: string }).k]!))],
    });
    assert.deepEqual(valueOf(result), { json: { a: [1, 2, { b: 'ü\u0000' }], n: 1e300 }, array: [true, null, 'x'], looks: '{"a":1,} and more', empty: '[' });
    assert.deepEqual(result.calls.map((c) => c.status), ['ok', 'ok', 'ok', 'ok']);
    // A binding that builds one from anything but a string gets a clear error, in its own call.
    const bad = await runtime.execute('try { await tools.bad({}); } catch (e) { return [e.name, e.message]; }', {
      tools: [tool('bad', async () => new JsonText(1 as unknown as string))],
    });
    assert.deepEqual(valueOf(bad), ['TypeError', 'a JsonText holds a string']);
  });

  test('a JsonText answer is bounded by maxResultBytes like any other, by the bytes that cross', async () => {
    const result = await runtime.execute('try { await tools.big({}); } catch (e) { return [e.name, e.message]; }', {
      // The spaces count: the text crosses as it is (JSON.stringify of its value would be 84 bytes).
      tools: [tool('big', async () => new JsonText(`[ "${'ü'.repeat(40)}" ]`))],
      limits: { maxResultBytes: 50 },
    });
    assert.deepEqual(valueOf(result), ['RangeError', 'the result of tool big is 86 bytes, over the 50-byte limit (maxResultBytes)']);
    assert.equal(result.calls[0]!.status, 'error');
  });

  test('a JsonText answer nested past what the engine parses fails the call, never turns into text', async () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const result = await runtime.execute('try { const v = await tools.deep({}); return typeof v; } catch (e) { return [e.name, e.message]; }', {
      tools: [tool('deep', async () => new JsonText(deep))],
    });
    // V8 parses any depth (an array then); QuickJS's parser runs out of stack, as it does for a
    // script's own JSON.parse of the same text: the call or the run fails. Never the text as a string.
    if (result.ok) assert.ok(result.value === 'object' || (Array.isArray(result.value) && result.value[1] === 'the tool result could not be decoded'), JSON.stringify(result.value));
    else assert.match(result.error.message, /stack/);
  });

  test('maxInFlight rejects calls beyond it; awaiting frees the slots', async () => {
    const value = valueOf(await runtime.execute(
      `const first = [tools.echo(1), tools.echo(2)];
       let third;
       try { await tools.echo(3); } catch (e) { third = e.message; }
       await Promise.all(first);
       return [third, await tools.echo(4)];`,
      { tools: [tool('echo')], limits: { maxInFlight: 2 } },
    ));
    assert.deepEqual(value, ['tools.echo: 2 calls are already in flight (limit maxInFlight); await some before starting more', 4]);
  });

  test('maxCalls fails the run', async () => {
    const result = await runtime.execute('for (let i = 0; i < 10; i++) { try { await tools.echo(i); } catch {} } return "finished";', {
      tools: [tool('echo')],
      limits: { maxCalls: 3 },
    });
    const error = errorOf(result);
    assert.equal(error.name, 'RangeError');
    assert.equal(error.message, 'the script made more than 3 tool calls (limit maxCalls)');
    assert.equal(result.calls.length, 3);
  });
});

describe('pauseClock', () => {
  test('time while a pause is held does not count against the timeout', async () => {
    const approval = tool('approve', async (_args, ctx) => {
      const resume = ctx.pauseClock();
      // Longer than the whole time limit, while paused.
      await new Promise((resolve) => setTimeout(resolve, 400));
      resume();
      resume(); // a second call does nothing
      return 'approved';
    });
    const result = await runtime.execute('return await tools.approve({});', { tools: [approval], timeoutMs: 200 });
    assert.equal(valueOf(result), 'approved');
  });

  test('the clock runs again once every pause is released', async () => {
    const approval = tool('approve', async (_args, ctx) => {
      const a = ctx.pauseClock();
      const b = ctx.pauseClock();
      a();
      await new Promise((resolve) => setTimeout(resolve, 300)); // still paused by b
      b();
      return 'approved';
    });
    const result = await runtime.execute('await tools.approve({}); while (true) {}', { tools: [approval], timeoutMs: 200 });
    assert.equal(errorOf(result).kind, 'timeout');
  });
});
});
}
