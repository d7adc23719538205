/**
 * A value over the model's cap keeps its beginning as valid JSON, and says where it was cut
 * (issue 44, item 3): the 5 MB case end to end (the script sees all of it; the model
 * gets valid JSON under the cap naming the cut), and the prefix rules on their own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';
import { valuePrefix } from '../../src/code-execution/value-prefix.ts';

test('a 5 MB result: the script sees all of it; the model gets valid JSON under the cap that says what was cut', async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const rows = Array.from({ length: 60_000 }, (_, i) => ({ id: i, title: `row title number ${i}`, body: 'lorem ipsum '.repeat(4) }));
  const payload = JSON.stringify({ total: rows.length, rows });
  assert.ok(payload.length > 5_000_000, String(payload.length));
  host.registerTool({ name: 'big', description: 'A big result', inputSchema: { type: 'object' }, handler: async () => textResult(payload) });
  const ce = registerCodeExecution(host, {});
  try {
    const inferenceId = host.beginInference({ conversationId: 'big' });
    const seen = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'const r = await tools.big({}); return [r.rows.length, r.rows[59999].id]' } });
    assert.deepEqual((seen.result!.structuredContent as { value: unknown }).value, [60_000, 59_999]);
    const out = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: 'return await tools.big({})' } });
    const text = (out.result!.content[0] as unknown as { text: string }).text;
    assert.ok(text.length <= 64 * 1024, String(text.length));
    const env = JSON.parse(text) as { value: { total: number; rows: { id: number }[] }; truncated: { value: { chars: number; cuts: { path: string; kept: number; of: number }[] } } };
    assert.equal(env.value.total, 60_000);
    assert.ok(env.value.rows.length > 10);
    env.value.rows.forEach((row, i) => assert.equal(row.id, i));
    assert.deepEqual(env.truncated.value.cuts, [{ path: '$.rows', kept: env.value.rows.length, of: 60_000 }]);
    assert.equal(env.truncated.value.chars, payload.length);
  } finally {
    await ce.close();
    await host.close();
  }
});

test('prefix rules: array items whole, object members in order, a string cut, paths and counts', () => {
  const r = valuePrefix({ a: 'x'.repeat(50), list: [1, 2, 3, 4, 5], 'odd key': 'y'.repeat(100) }, 60)!;
  assert.ok(JSON.stringify(r.value).length <= 60, JSON.stringify(r.value));
  assert.equal((r.value as { a: string }).a, 'x'.repeat(50));
  assert.ok(r.cuts.some((c) => c.path === '$' && c.of === 3));
  const s = valuePrefix([{ text: 'z'.repeat(1000) }, 'abc'], 100)!;
  assert.deepEqual(s.cuts.map((c) => c.path), ['$', '$[0].text']);
  const whole = valuePrefix(['abc', { text: 'z'.repeat(1000) }], 100)!;
  assert.deepEqual(whole, { value: ['abc'], cuts: [{ path: '$', kept: 1, of: 2 }] });
  assert.equal(valuePrefix([1, 2], 1), undefined);
  assert.deepEqual(valuePrefix({ small: 1 }, 100), { value: { small: 1 }, cuts: [] });
});
