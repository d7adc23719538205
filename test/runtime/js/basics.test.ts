/**
 * The script's world: console capture, how tools are named and reached, globals, and a fresh
 * context per run.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { closestNames } from '../../../src/runtime/names.ts';
import { errorOf, global, tool, valueOf } from './helpers.ts';
import { ENGINES } from './engines.ts';

for (const engine of ENGINES) {
describe(`${engine} engine`, () => {
const runtime = new JsRuntime({ engine });
after(() => runtime.close());

describe('console', () => {
  test('every level is captured in order, with values formatted', async () => {
    const result = await runtime.execute(
      `console.log('plain', 1, true, null, undefined, 2n, Symbol('s'));
       console.info({ a: [1, { b: 2 }] });
       console.warn(() => 1, function named() {});
       console.error(new RangeError('shown with its stack'));
       const cyclic = {}; cyclic.self = cyclic;
       console.debug(cyclic, 'after');
       return 1;`,
      { tools: [] },
    );
    assert.deepEqual(result.logs, [
      { level: 'log', message: 'plain 1 true null undefined 2n Symbol(s)' },
      { level: 'info', message: '{ a: [ 1, { b: 2 } ] }' },
      { level: 'warn', message: '[Function (anonymous)] [Function named]' },
      { level: 'error', message: `RangeError: shown with its stack\n    at script.js:4:${engine === 'v8' ? 22 : 26}` },
      { level: 'debug', message: '{ self: [Circular] } after' },
    ]);
  });

  test('logs made before a failure are kept', async () => {
    const result = await runtime.execute('console.log("before"); throw new Error("after");', { tools: [] });
    assert.equal(errorOf(result).message, 'after');
    assert.deepEqual(result.logs, [{ level: 'log', message: 'before' }]);
  });
});

describe('tool names', () => {
  const tools = [tool('x--run', async () => 'dashed'), tool('plain', async () => 'plain'), tool('a+b', async () => 'plus'), tool('a-b', async () => 'dash')];

  test('a name that is not an identifier is reachable by name and by its sanitized identifier', async () => {
    assert.deepEqual(valueOf(await runtime.execute('return [await tools["x--run"](), await tools.x__run(), await tools.plain()];', { tools })), [
      'dashed',
      'dashed',
      'plain',
    ]);
  });

  test('Object.keys(tools) lists the real names once', async () => {
    assert.deepEqual(valueOf(await runtime.execute('return Object.keys(tools);', { tools })), ['x--run', 'plain', 'a+b', 'a-b']);
  });

  test('a collision after sanitizing is reported, and both tools stay reachable by name', async () => {
    const error = errorOf(await runtime.execute('return await tools.a_b();', { tools }));
    assert.equal(error.name, 'TypeError');
    assert.equal(
      error.message,
      'tools.a_b is ambiguous: tools["a+b"] and tools["a-b"] all become "a_b" as identifiers; call the one you mean by its name, e.g. tools["a+b"]',
    );
    assert.deepEqual(valueOf(await runtime.execute('return [await tools["a+b"](), await tools["a-b"]()];', { tools })), ['plus', 'dash']);
  });

  test('reading a tool that does not exist names the closest tools, ranked as names.ts ranks them', async () => {
    const names = ['search_issues', 'search_code', 'get_issue', 'create_issue', 'x--run'];
    const bindings = names.map((name) => tool(name));
    for (const wanted of ['searchIssues', 'get_isue', 'x-run', 'zzz']) {
      const error = errorOf(await runtime.execute(`return tools.${wanted.replace('-', '_')};`, { tools: bindings }));
      const label = (n: string) => (/^[A-Za-z_$][\w$]*$/.test(n) ? `tools.${n}` : `tools[${JSON.stringify(n)}]`);
      const expected = closestNames(wanted.replace('-', '_'), names).map(label).join(', ');
      assert.equal(error.message, `tools.${wanted.replace('-', '_')} is not a tool. Closest: ${expected}`);
    }
  });

  test('with no tools the message says so; probing then/toJSON is not an error', async () => {
    assert.equal(errorOf(await runtime.execute('tools.anything;', { tools: [] })).message, 'tools.anything is not a tool: no tools are available');
    assert.deepEqual(valueOf(await runtime.execute('return [typeof tools.then, JSON.stringify(tools), "x" in tools];', { tools: [] })), [
      'undefined',
      '{}',
      false,
    ]);
  });

  test('tools is read-only', async () => {
    const value = valueOf(await runtime.execute(
      '"use strict"; const out = []; try { tools.plain = 1; } catch (e) { out.push(e.name); } try { globalThis.tools = 1; } catch (e) { out.push(e.name); } return [out, typeof tools.plain];',
      { tools },
    ));
    assert.deepEqual(value, [['TypeError', 'TypeError'], 'function']);
  });
});

describe('globals', () => {
  test('are top-level functions that call the host and are not recorded as calls', async () => {
    const seen: unknown[] = [];
    const result = await runtime.execute('const a = await image({ ref: 1 }); const b = await tools.echo(2); return [a, b, typeof globalThis.image];', {
      tools: [global('image', async (args) => (seen.push(args), 'img')), tool('echo')],
    });
    assert.deepEqual(valueOf(result), ['img', 2, 'function']);
    assert.deepEqual(seen, [{ ref: 1 }]);
    assert.deepEqual(result.calls.map((c) => c.name), ['echo']);
  });
});

describe('a fresh context per run', () => {
  test('nothing a run defines is visible to the next', async () => {
    valueOf(await runtime.execute('globalThis.kept = 1; var alsoKept = 2; Math.pwned = true; return 1;', { tools: [] }));
    assert.deepEqual(valueOf(await runtime.execute('return [typeof kept, typeof alsoKept, Math.pwned === undefined];', { tools: [] })), [
      'undefined',
      'undefined',
      true,
    ]);
  });

  test('the tools of one run are not those of the next', async () => {
    valueOf(await runtime.execute('return await tools.first();', { tools: [tool('first', async () => 1)] }));
    assert.match(errorOf(await runtime.execute('return tools.first;', { tools: [tool('second')] })).message, /tools\.first is not a tool/);
  });

  test('runs proceed concurrently, each in its own process', async () => {
    const results = await Promise.all(
      [1, 2, 3].map((n) => runtime.execute(`const v = await tools.echo(${n}); globalThis.mine = v; await tools.echo(0); return globalThis.mine;`, { tools: [tool('echo')] })),
    );
    assert.deepEqual(results.map(valueOf), [1, 2, 3]);
  });
});
});
}
