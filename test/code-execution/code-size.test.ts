/**
 * The `code` size limit (maxCodeBytes): a script over it is refused before anything else is done
 * with it — no normalization, no engine, no inner call — with an `invalid_request` message that
 * names the limit; JavaScript, TypeScript and Python alike. A script at the limit runs.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import { DEFAULT_MAX_CODE_BYTES, codeTooLarge } from '../../src/code-execution/code-size.ts';
import type { DispatchOutcome } from '../../src/host/types.ts';

let host: ToolHost;
let ce: CodeExecution;
let small: CodeExecution;
let smallHost: ToolHost;
let marks = 0;

before(() => {
  host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'mark', description: 'Records that it ran', inputSchema: { type: 'object' }, handler: async () => (marks++, textResult('marked')) });
  ce = registerCodeExecution(host);
  smallHost = new ToolHost({ logger: pino({ level: 'silent' }) });
  small = registerCodeExecution(smallHost, { maxCodeBytes: 1000, languages: ['javascript'] });
});
after(async () => {
  await ce.close();
  await host.close();
  await small.close();
  await smallHost.close();
});

async function run(h: ToolHost, code: string, language = 'javascript'): Promise<DispatchOutcome> {
  const stream = h.openStream(`size-${Math.random()}`);
  return h.dispatch({ inferenceId: stream.beginInference(), name: 'code_execution', input: { code, language } });
}
const text = (o: DispatchOutcome) => String(o.result.content[0]?.text);

/** A script of `bytes` UTF-8 bytes that would run and call a tool if admitted. */
function padded(head: string, bytes: number, comment: string): string {
  return head + '\n' + comment + ' ' + 'x'.repeat(bytes - Buffer.byteLength(head) - comment.length - 2);
}

const OVER = DEFAULT_MAX_CODE_BYTES + 1;
const SCRIPTS = {
  javascript: padded('await tools.mark({}); return 1;', OVER, '//'),
  typescript: padded('const n: number = 1; await tools.mark({}); return n;', OVER, '//'),
  python: padded('await tools.mark({})\n1', OVER, '#'),
};

for (const [name, code] of Object.entries(SCRIPTS)) {
  test(`${name}: code one byte over maxCodeBytes is refused, invalid_request, naming the limit; nothing runs`, async () => {
    assert.equal(Buffer.byteLength(code), OVER);
    const before = marks;
    const out = await run(host, code, name === 'python' ? 'python' : 'javascript');
    assert.equal(out.result.isError, true, text(out));
    assert.match(text(out), /^invalid_request: `code` is 262,145 bytes, over the limit of 262,144 bytes \(maxCodeBytes\)/);
    assert.equal(marks, before, 'the script did not run');
  });
}

test('a script at the limit runs', async () => {
  const out = await run(host, padded('await tools.mark({}); return 7;', DEFAULT_MAX_CODE_BYTES, '//'));
  assert.equal(out.result.isError, undefined, text(out));
  assert.equal((out.result.structuredContent as { value?: unknown }).value, 7);
});

test('maxCodeBytes is configurable; bytes are UTF-8 bytes, not characters', async () => {
  // 400 characters of 3-byte UTF-8: 1,200 bytes, over a 1,000-byte limit.
  const out = await run(smallHost, `return "${'€'.repeat(400)}";`);
  assert.match(text(out), /^invalid_request: `code` is 1,210 bytes, over the limit of 1,000 bytes \(maxCodeBytes\)/);
  const fits = await run(smallHost, `return "${'€'.repeat(300)}";`);
  assert.equal((fits.result.structuredContent as { value?: unknown }).value, '€'.repeat(300), text(fits));
});

test('codeTooLarge never encodes a string clearly over or under the limit, and counts surrogate pairs as 4 bytes', () => {
  assert.equal(codeTooLarge('a'.repeat(333), 1000), undefined);
  assert.match(codeTooLarge('a'.repeat(1001), 1000)!, /is 1,001 bytes/);
  assert.match(codeTooLarge('a'.repeat(4001), 1000)!, /is more than 1,000 bytes/);
  assert.match(codeTooLarge('😀'.repeat(251), 1000)!, /1,004 bytes/);
  assert.equal(codeTooLarge('😀'.repeat(250), 1000), undefined);
});

test('registerCodeExecution rejects a maxCodeBytes that is not a whole number ≥ 1', () => {
  const h = new ToolHost({ logger: pino({ level: 'silent' }) });
  assert.throws(() => registerCodeExecution(h, { maxCodeBytes: 0 }), /maxCodeBytes/);
  assert.throws(() => registerCodeExecution(h, { maxCodeBytes: 1.5 }), /maxCodeBytes/);
});
