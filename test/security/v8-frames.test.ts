/**
 * Issue 19, item 7: on the V8 engine, every stack a script sees (caught or reported as the run's
 * error) shows only `script.js` frames: never the prelude's, the guest helpers', the sandbox
 * process's own (toolcell's files, Node's internals), nor an absolute install path. Each error
 * path the script can reach is driven: the bridge (bad, huge or unknown calls), tool failures,
 * console, print and inspect, globals, limits, and errors of the sandbox process's own realm.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { ToolBinding } from '../../src/runtime/types.ts';
import { HOST_ERROR_FINDER, v8Runtime } from './v8.ts';

const runtime = v8Runtime();
after(() => runtime.close());

const tools: ToolBinding[] = [
  { name: 'echo', invoke: async (a: unknown) => a },
  { name: 'fail', invoke: async () => { throw new TypeError('host side failure'); } },
  { name: 'ns.deep.fn', invoke: async (a: unknown) => a },
  { name: 'describe', kind: 'global', invoke: async (a: unknown) => { if (typeof a !== 'string') throw new TypeError('describe takes a name'); return a; } },
];

const PATHS: Record<string, string> = {
  'circular arguments': 'const a = {}; a.a = a; await tools.echo(a)',
  'BigInt arguments': 'await tools.echo({ x: 1n })',
  'huge arguments': "await tools.echo({ s: 'x'.repeat(2e6) })",
  'unknown tool': 'await tools.nope({})',
  'unknown namespace member': 'tools.ns.deep.nope()',
  'tool failure': 'await tools.fail({})',
  'global failure': 'await describe(42)',
  'console past its limit': "console.log('x'.repeat(5e6))",
  'inspect of a throwing proxy': "inspect(new Proxy({}, { get() { throw new Error('trap') } })); throw new Error('after')",
  'tools coerced to a string': 'String(tools)',
  'tools constructed': 'Reflect.construct(tools.echo, [])',
  'too many calls': 'for (let i = 0; i < 300; i++) await tools.echo({})',
  'dynamic import': "await import('fs')",
  'code from strings': "new Function('return 1')()",
  'stack overflow': 'function f() { return f() } f()',
};

/** Frames and paths a script must never see. */
function leaks(stack: string): string[] {
  const lines = stack.split('\n').filter((l) => /^\s+at /.test(l));
  const bad = lines.filter((l) => !/^\s+at (async )?([^\s(]+ \()?script\.js:\d+:\d+\)?$/.test(l));
  if (/\/(work|home|usr|root|tmp)\/|node:|file:|toolcell-|\.mjs/.test(stack)) bad.push(`(a path or internal name in: ${stack.slice(0, 200)})`);
  return bad;
}

for (const [what, body] of Object.entries(PATHS)) {
  test(`v8: ${what}: the stack shows only script.js frames, caught and uncaught`, async () => {
    const caught = await runtime.execute(`${HOST_ERROR_FINDER}\ntry { ${body} } catch (e) { return { stack: String(e && e.stack) } }\nreturn null`, { tools, timeoutMs: 30_000 });
    const value = caught.ok ? (caught.value as { stack: string } | null) : null;
    const seen = [value?.stack ?? '', caught.ok ? '' : (caught.error.stack ?? '') + caught.error.message];
    const uncaught = await runtime.execute(`${HOST_ERROR_FINDER}\n${body}\nreturn null`, { tools, timeoutMs: 30_000 });
    if (!uncaught.ok) seen.push(`${uncaught.error.message}\n${uncaught.error.stack ?? ''}`);
    for (const stack of seen) assert.deepEqual(leaks(stack), [], stack);
  });
}

/** Overflows the stack inside Node's dynamic-import path, keeping every error of the process's realm. */
const GATHER = `
const found = [];
const keep = (e) => { if (!(e instanceof Object)) found.push(e); };
const imports = [];
function attempt() {
  try { imports.push(import('node:fs').catch(keep)); } catch (e) { keep(e); }
}
function dive() {
  try { dive(); } catch {}
  if (imports.length < 20000) attempt();
}
for (let round = 0; round < 5; round++) dive();
await Promise.all(imports);
return found.map((e) => String(e.stack));
`;

test("v8: errors of the sandbox process's own realm show only script.js frames", async () => {
  // Each is made wherever the overflow struck: in the script, or in Node's import callbacks.
  // A fresh process each time: one that already ran the other paths was seen to reach none.
  let stacks: string[] = [];
  for (let attempt = 0; attempt < 5 && stacks.length === 0; attempt++) {
    const fresh = v8Runtime();
    try {
      const r = await fresh.execute(GATHER, { tools, timeoutMs: 60_000 });
      assert.ok(r.ok, JSON.stringify(r));
      stacks = r.value as string[];
    } finally {
      await fresh.close();
    }
  }
  assert.ok(stacks.length > 0, "no error of the process's realm was reached: the attack did not run");
  for (const stack of stacks) assert.deepEqual(leaks(stack), [], stack);
});

test("v8: a tool function's source text is not the prelude's, in String() nor in a construct error", async () => {
  const r = await runtime.execute(
    "let message = ''; try { Reflect.construct(tools.echo, []) } catch (e) { message = e.message } return { text: String(tools.echo), global: String(describe), message, name: tools.echo.name }",
    { tools, timeoutMs: 10_000 },
  );
  assert.ok(r.ok, JSON.stringify(r));
  const value = r.value as { text: string; global: string; message: string; name: string };
  for (const seen of [value.text, value.global, value.message]) assert.doesNotMatch(seen, /invoke|isGlobal|label|=>/, seen);
  assert.equal(value.name, 'echo');
});
