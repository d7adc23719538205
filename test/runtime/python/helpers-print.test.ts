/**
 * Python's script helpers (issue 10, 14): `print` writes containers with a bounded repr
 * (cyclic, deep, long and wide values stay readable and bounded), `inspect` describes a value's
 * shape within its bound. Neither is a tool call.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { PythonRunner } from '../../../src/runtime/python/index.ts';

const runner = new PythonRunner();
after(() => runner.close());
const run = (code: string) => runner.run(code, { tools: [], timeoutMs: 10_000 });

test('print: cyclic, deep, long and wide containers are bounded and readable; strings print as they are', async () => {
  const r = await run(
    [
      'cyc = [1]; cyc.append(cyc)',
      'print(cyc)',
      'deep = {"leaf": 1}',
      'for _ in range(50): deep = {"d": deep}',
      'print(deep)',
      'print(list(range(100000)))',
      'print({"s": "x" * 50000})',
      'print({"k%d" % i: "v" * 100 for i in range(5000)})',
      'print("plain " * 3)',
    ].join('\n'),
  );
  assert.equal(r.ok, true, JSON.stringify(r.error));
  const [cyclic, deepLine, long, str, wide, plain] = r.stdout.split('\n');
  assert.equal(cyclic, '[1, [1, [1, [...]]]]');
  assert.equal(deepLine, "{'d': {'d': {'d': {...}}}}");
  assert.match(long!, /^\[0, 1, 2, .*, 99, \.\.\.\]$/);
  assert.match(str!, /^\{'s': 'x{10000}'… 40000 more characters\}$/);
  assert.ok(wide!.length <= 16_500, `wide dict printed as ${wide!.length} characters`);
  assert.match(wide!, /^\{'k0': 'v+', 'k1': /);
  assert.equal(plain, 'plain plain plain ');
});

test('inspect describes the shape of a large nested value within 2,000 characters', async () => {
  const r = await run(
    'data = {"total": 20000, "items": [{"id": i, "body": "lorem " * 50, "tags": ["a", "b"], "owner": {"name": "u", "geo": {"lat": 1}}} for i in range(20000)]}\ninspect(data)',
  );
  const shape = r.value as string;
  assert.ok(shape.length <= 2000, `${shape.length} characters`);
  assert.equal(
    shape,
    "{'total': 20000, 'items': list(20000) [{'id': 0, 'body': str(300) 'lorem lorem lorem lorem lorem lorem lore…', 'tags': list(2) ['a', …], 'owner': {'name': 'u', 'geo': {…1 keys}}}, …]}",
  );
  assert.deepEqual(r.calls, []);
});
