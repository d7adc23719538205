import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunOutput, endMarker, trimPartialUtf8 } from '../../../src/runtime/python/output.ts';
import { encodeResult, parseInbound } from '../../../src/runtime/python/protocol.ts';
import { childEnvironment, validateExtraEnv } from '../../../src/runtime/python/env.ts';
import { buildRunTools } from '../../../src/runtime/python/tool-table.ts';
import { tool } from './helpers.ts';

const noop = async () => null;

test('output: a marker split across chunks ends the stream and is not part of the output', () => {
  const marker = endMarker('abc', 7);
  const out = new RunOutput(marker, 1000);
  const data = Buffer.concat([Buffer.from('hello \x1e world'), marker, Buffer.from('after')]);
  for (let i = 0; i < data.length; i += 3) out.feed('stdout', data.subarray(i, i + 3));
  assert.equal(out.complete, false, 'stderr has not ended yet');
  out.feed('stderr', marker);
  assert.equal(out.complete, true);
  assert.deepEqual(out.finish(), { stdout: 'hello \x1e world', stderr: '', truncated: false });
});

test('output: a marker of another run does not end this one', () => {
  const out = new RunOutput(endMarker('abc', 2), 1000);
  out.feed('stdout', endMarker('abc', 1));
  out.feed('stderr', endMarker('abc', 2));
  out.feed('stdout', endMarker('abc', 2));
  assert.equal(out.complete, true);
  assert.equal(out.finish().stdout, endMarker('abc', 1).toString('latin1'));
});

test('output: the cap is shared by both streams and sets truncated', () => {
  const out = new RunOutput(endMarker('n', 1), 10);
  out.feed('stdout', Buffer.from('123456'));
  out.feed('stderr', Buffer.from('abcdef'));
  out.feed('stdout', Buffer.from('zzz'));
  assert.deepEqual(out.finish(), { stdout: '123456', stderr: 'abcd', truncated: true });
});

test('output: without a marker (a crash) held-back bytes are still returned', () => {
  const out = new RunOutput(endMarker('n', 1), 100);
  out.feed('stderr', Buffer.from('boom\x1etool'));
  assert.equal(out.complete, false);
  assert.equal(out.finish().stderr, 'boom\x1etool');
});

test('output: truncation never leaves half a UTF-8 character', () => {
  assert.equal(trimPartialUtf8(Buffer.from('aé', 'utf8').subarray(0, 2)).toString(), 'a');
  assert.equal(trimPartialUtf8(Buffer.from('a€', 'utf8').subarray(0, 3)).toString(), 'a');
  assert.equal(trimPartialUtf8(Buffer.from('a€', 'utf8')).toString(), 'a€');
  for (const [cap, kept] of [[4, 'ab'], [6, 'ab€']] as const) {
    const out = new RunOutput(endMarker('n', 1), cap);
    out.feed('stdout', Buffer.from('ab€€'));
    assert.deepEqual(out.finish(), { stdout: kept, stderr: '', truncated: true });
  }
});

test('protocol: malformed lines are reported, well-formed ones parsed', () => {
  assert.deepEqual(parseInbound('{"t":"call","run":1,"id":2,"name":"x","args":{"a":1}}'), { t: 'call', run: 1, id: 2, name: 'x', args: { a: 1 } });
  assert.match(parseInbound('nope') as string, /not JSON/);
  assert.match(parseInbound('[1]') as string, /malformed/);
  assert.match(parseInbound('{"t":"done","run":1,"outcome":"weird","returnCode":0}') as string, /malformed/);
  assert.match(parseInbound('{"t":"call","run":"1","id":2,"name":"x"}') as string, /malformed/);
});

test('protocol: a result JSON cannot carry becomes an error the script sees', () => {
  const big = encodeResult(1, 2, { ok: true, value: 10n });
  assert.equal(big.ok, false);
  assert.match(JSON.parse(big.line).error.message, /not JSON-serializable/);
  const undef = encodeResult(1, 2, { ok: true, value: undefined });
  assert.deepEqual(JSON.parse(undef.line), { t: 'result', run: 1, id: 2, ok: true });
});

test('env: only allowlisted host variables pass, extras are added, bad names are refused', () => {
  const env = childEnvironment({ PATH: '/bin', HOME: '/h', TOOLCELL_SECRET: 's', AWS_SECRET_ACCESS_KEY: 'k' }, { EXTRA: '1' });
  assert.deepEqual(env, { PATH: '/bin', HOME: '/h', PYTHONIOENCODING: 'utf-8', EXTRA: '1' });
  assert.throws(() => validateExtraEnv({ 'A=B': 'x' }), /not a valid environment variable name/);
  assert.throws(() => validateExtraEnv({ A: 'x\0y' }), /NUL/);
});

test('tool table: aliases, collisions and helpers; invalid bindings are refused', () => {
  const { table, bindings } = buildRunTools([tool('x--run', noop), tool('x..run', noop), tool('plain', noop), tool('log-it', noop, 'global')]);
  assert.deepEqual(table.names, ['x--run', 'x..run', 'plain']);
  assert.deepEqual(table.aliases, {});
  assert.deepEqual(table.collisions, { x__run: ['x--run', 'x..run'] });
  assert.deepEqual(table.helpers, { log_it: 'log-it' });
  assert.equal(bindings.size, 4);
  assert.throws(() => buildRunTools([tool('a', noop), tool('a', noop)]), /two tool bindings are named "a"/);
  assert.throws(() => buildRunTools([tool('a-b', noop, 'global'), tool('a+b', noop, 'global')]), /both become a_b/);
  // A dotted global is a path: 'a.b' and 'a-b' do not collide.
  assert.deepEqual(buildRunTools([tool('a-b', noop, 'global'), tool('a.b', noop, 'global')]).table.helpers, { a_b: 'a-b', 'a.b': 'a.b' });
  assert.throws(() => buildRunTools([{ name: 'a' } as never]), /no invoke function/);
});
