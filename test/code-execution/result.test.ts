/**
 * Fitting the result envelope within its cap: whatever is too large (value, stdout, one huge
 * log entry, an error message, text that grows when escaped), the JSON text parses, stays within
 * the cap, validates against the declared schema, and says what was cut.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { buildEnvelope, roundMs, summarizeCalls, toToolResult, type ResultEnvelope } from '../../src/code-execution/result.ts';
import { RESULT_ENVELOPE_SCHEMA } from '../../src/code-execution/output-schema.ts';
import { shapeOf, MAX_SHAPE_CHARS } from '../../src/code-execution/shape.ts';

const validate = new Ajv({ strict: false }).compile(RESULT_ENVELOPE_SCHEMA);
const TL = { requestedMs: 30_000, appliedMs: 30_000, capped: false };

function fitted(envelope: ResultEnvelope, cap: number): ResultEnvelope {
  const result = toToolResult(envelope, cap, false);
  const text = (result.content[0] as unknown as { text: string }).text;
  assert.ok(text.length <= cap, `text is ${text.length} characters, cap ${cap}`);
  const parsed = JSON.parse(text);
  assert.deepEqual(parsed, result.structuredContent);
  assert.ok(validate(parsed), JSON.stringify(validate.errors));
  return parsed;
}

test('an envelope within the cap comes back unchanged, value verbatim', () => {
  const env = buildEnvelope({ ok: true, value: { a: [1, 'two', null] }, logs: [], calls: [] }, TL);
  assert.deepEqual(fitted(env, 1000), { ok: true, value: { a: [1, 'two', null] }, calls: [], timeLimit: TL });
});

test('text that grows when escaped (quotes, newlines, control characters) still fits', () => {
  const nasty = '"\n\u0001\\'.repeat(20_000);
  const env = buildEnvelope({ ok: true, stdout: nasty, value: nasty, logs: [{ level: 'log', message: nasty }], calls: [] }, TL);
  const out = fitted(env, 5000);
  // The string's beginning, as a prefix of the value, and the cut in characters.
  assert.equal(typeof out.value, 'string');
  assert.ok(nasty.startsWith(out.value as string));
  assert.deepEqual(out.truncated!.value!.cuts, [{ path: '$', kept: (out.value as string).length, of: nasty.length }]);
  assert.equal(out.truncated!.value!.chars, JSON.stringify(nasty).length);
  assert.equal(out.truncated!.value!.shape, `string(${nasty.length})`);
  assert.equal(out.truncated!.stdout!.chars, nasty.length);
  assert.ok(nasty.startsWith(out.stdout!));
});

test('one huge log entry keeps its beginning; later entries are dropped and counted', () => {
  const logs = [{ level: 'log' as const, message: 'first' }, { level: 'warn' as const, message: 'y'.repeat(50_000) }, { level: 'log' as const, message: 'never' }];
  const out = fitted(buildEnvelope({ ok: true, logs, calls: [] }, TL), 4000);
  assert.equal(out.logs![0]!.message, 'first');
  assert.match(out.logs![1]!.message, /^y+$/);
  assert.equal(out.logs!.length, 2);
  assert.deepEqual(out.truncated!.logs, { entries: 3 });
});

test('a huge error message and stack are shortened and marked', () => {
  const error = { kind: 'script' as const, name: 'Error', message: 'm'.repeat(100_000), stack: 's'.repeat(100_000) };
  const out = fitted(buildEnvelope({ ok: false, error, calls: [] }, TL), 8000);
  assert.equal(out.error!.kind, 'script');
  assert.ok(out.error!.message.length <= 2000);
  assert.equal(out.truncated!.error, true);
});

test('Python output folds in: stderr is a logs entry, the runtime cut is marked, returnCode is not repeated', () => {
  const out = buildEnvelope({ ok: false, stdout: 'hi\n', stderr: 'Traceback…\n', truncated: true, error: { kind: 'script', name: 'ValueError', message: 'bad' }, calls: [] }, TL);
  assert.deepEqual(out.logs, [{ level: 'error', message: 'Traceback…\n' }]);
  assert.deepEqual(out.truncated, { output: true });
  assert.ok(validate(out));
});

test('durations are rounded to 0.1 ms; long call lists are summarized with rounded totals', () => {
  assert.equal(roundMs(1.23456), 1.2);
  assert.equal(roundMs(0.05), 0.1);
  const calls = Array.from({ length: 30 }, (_, i) => ({ name: i % 2 ? 'a' : 'b', status: 'ok' as const, durationMs: 0.123456 }));
  const s = summarizeCalls(calls);
  assert.equal(s.calls.length, 25);
  assert.equal(s.callCount, 30);
  assert.deepEqual(s.callTotals, { b: { ok: 15, error: 0, cancelled: 0, totalMs: 1.9 }, a: { ok: 15, error: 0, cancelled: 0, totalMs: 1.9 } });
  assert.ok(s.calls.every((c) => c.durationMs === 0.1));
});

test('a shape stays within its bound however wide or deep the value', () => {
  const wide = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`key${i}`, { nested: { deeper: [{ x: 'y'.repeat(i) }] } }]));
  const text = shapeOf(wide);
  assert.ok(text.length <= MAX_SHAPE_CHARS, `${text.length}`);
  assert.match(text, /… 488 more keys/);
  assert.equal(shapeOf([]), 'array(0)');
  assert.equal(shapeOf({ items: [{ id: 1, tags: ['a'] }], total: 1 }), '{ "items": array(1) of { "id": number, "tags": array(1) of string(1) }, "total": number }');
});

// The value's JSON text kept by the runtime (src/runtime/json-text.ts): the result's text is
// written from it instead of serializing the value again (issue 46, the 1 MB round trip).
test('a value the runtime parsed from JSON text is written from that text, once', async () => {
  const { rememberText, takeText } = await import('../../src/runtime/json-text.ts');
  const value = { items: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }] };
  // Text with insignificant spaces: only a splice can put them in the result's text.
  const text = '{"items":[{"id":1, "name":"a"},{"id":2, "name":"b"}]}';
  rememberText(value, text);
  const env = buildEnvelope({ ok: true, value, stdout: 'hi\n', logs: [{ level: 'log', message: 'x' }], calls: [] }, TL);
  const result = toToolResult(env, 10_000, false);
  const out = (result.content[0] as unknown as { text: string }).text;
  assert.equal(out, `{"ok":true,"value":${text},"stdout":"hi\\n","logs":[{"level":"log","message":"x"}],"calls":[],"timeLimit":${JSON.stringify(TL)}}`);
  assert.deepEqual(JSON.parse(out), result.structuredContent);
  // Read once: a second result from the same (possibly edited) object serializes it.
  assert.equal(takeText(value), undefined);
  value.items.pop();
  const again = (toToolResult(buildEnvelope({ ok: true, value, calls: [] }, TL), 10_000, false).content[0] as unknown as { text: string }).text;
  assert.deepEqual(JSON.parse(again).value, { items: [{ id: 1, name: 'a' }] });
});

test('a value known by its text is measured by that text against the cap, and paged from it', async () => {
  const { rememberText } = await import('../../src/runtime/json-text.ts');
  const value = { items: Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item-${i}` })) };
  const text = JSON.stringify(value);
  rememberText(value, text);
  const kept: string[] = [];
  const env = buildEnvelope({ ok: true, value, calls: [] }, TL);
  const result = toToolResult(env, 3000, false, [], (json) => {
    kept.push(json);
    return { handle: 'h1', more: 'read the rest with result_page' };
  });
  const out = (result.content[0] as unknown as { text: string }).text;
  assert.ok(out.length <= 3000, `${out.length} characters`);
  const parsed = JSON.parse(out) as ResultEnvelope;
  assert.deepEqual(parsed, result.structuredContent);
  assert.equal(parsed.truncated?.value?.chars, text.length);
  assert.deepEqual(kept, [text]);
  assert.ok(validate(parsed), JSON.stringify(validate.errors));
});
