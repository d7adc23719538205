/**
 * Text crossing between a script and the host exactly, both ways: tool arguments and results,
 * console lines, tool error messages. The QuickJS engine reads and writes a VM's strings through
 * its own crossing (engines/quickjs/crossing.mjs), with a fast path for well-formed text and the
 * library's exact WTF-8 for text that may hold a lone surrogate (any UTF-8 lead byte 0xED, so
 * Hangul takes it too); each case below goes through one or the other.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { JsRuntime } from '../../../src/runtime/js/index.ts';
import { valueOf } from './helpers.ts';

// On a worker thread small frames cross as UTF-8 (the mailbox).

const SAMPLES = {
  ascii: 'plain text',
  nul: 'a\u0000b',
  hangul: '한국어 텍스트',
  emoji: 'x😀y',
  mixed: 'é中\u0000😀한',
};

describe('QuickJS crossing (thread)', () => {
  let runtime: JsRuntime;
  beforeEach(() => {
    runtime = new JsRuntime({ engine: 'quickjs' });
  });
  afterEach(() => runtime.close());
  // What a short line with a lone surrogate becomes: U+FFFD through UTF-8, itself as a string.
  const asTransportCan = (text: string) => text.toWellFormed();

  test('tool arguments and results cross unchanged, whatever their characters', async () => {
    const seen: unknown[] = [];
    const echo = { name: 'echo', invoke: async (args: unknown) => (seen.push(args), args) };
    const result = await runtime.execute('return await tools.echo(input);'.replace('input', JSON.stringify(SAMPLES)), { tools: [echo] });
    assert.deepEqual(valueOf(result), SAMPLES);
    assert.deepEqual(seen, [SAMPLES]);
  });

  test('close to a megabyte of multi-byte text crosses both ways unchanged', async () => {
    const echo = { name: 'echo', invoke: async (args: unknown) => args };
    const result = await runtime.execute(
      'const s = "한😀é".repeat(100000); const back = await tools.echo({ s }); return [back.s === s, back.s.length];',
      { tools: [echo] },
    );
    assert.deepEqual(valueOf(result), [true, '한😀é'.length * 100_000]);
  });

  // A lone surrogate cannot be UTF-8: where text crosses as UTF-8 (a frame small enough for the
  // thread's mailbox, a pipe) it arrives as U+FFFD, as through any UTF-8 transport; where it
  // crosses as a JavaScript string (a frame too large for the mailbox goes by the port; every
  // frame inline), exactly.
  // Both sides of the VM's crossing keep it exactly either way.
  const LONG = 'z'.repeat(70_000);

  test('console lines keep NUL and Hangul exactly, and lone surrogates as the transport can', async () => {
    const logged = async (lines: string[]) => {
      const result = await runtime.execute(lines.map((l) => `console.log(${JSON.stringify(l)});`).join('\n'), { tools: [] });
      assert.ok(result.ok, JSON.stringify(result).slice(0, 300));
      return result.logs.map((l) => l.message);
    };
    const short = ['a\ud800b', '\udc00', 'x\u0000y', '한국어'];
    assert.deepEqual(await logged(short), short.map(asTransportCan));
    const long = `\ud800${LONG}\udc00한`;
    assert.deepEqual(await logged([long]), [long], 'a line too large for the mailbox crosses as it was written');
  });

  test('a tool error message reaches the script exactly, a lone surrogate as the transport can', async () => {
    const fail = { name: 'fail', invoke: async (args: { n: number }) => { throw new Error(MESSAGES[args.n]); } };
    const MESSAGES = ['x\udc00y', '한국어', 'plain', `\udc00${LONG}\ud800한`];
    const script = `
      const out = [];
      for (let n = 0; n < ${MESSAGES.length}; n++) {
        try { await tools.fail({ n }); } catch (e) { out.push(Array.from(e.message, (c) => c.charCodeAt(0))); }
      }
      return out;`;
    const result = await runtime.execute(script, { tools: [fail] });
    const codes = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
    assert.deepEqual(valueOf(result), [codes(asTransportCan('x\udc00y')), codes('한국어'), codes('plain'), codes(MESSAGES[3]!)]);
  });
});
