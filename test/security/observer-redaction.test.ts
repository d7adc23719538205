/**
 * Credentials never reach an observer (issue 7): redaction walks arguments to a fixed depth, and
 * a credential nested past it used to be sent as it was. Past the depth redaction can inspect,
 * the input is withheld (fail closed). Checked on boundInput and through the real host with a
 * real observer process.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { boundInput } from '../../src/lifecycle/input-bound.ts';
import { makePeer, observePolicy, scratchDir } from '../helpers/peers.ts';

const SECRET = 'hunter2-do-not-leak';

/** `{ a: { a: … { password: SECRET } } }` with the credential at the given depth. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { password: SECRET, note: 'x' };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

test('boundInput withholds arguments whose credential sits past the inspectable depth', () => {
  const deep = boundInput(nested(70));
  assert.equal(deep.ok, false);
  assert.match((deep as { reason: string }).reason, /deeper than \d+ levels/);
  assert.ok(!JSON.stringify(deep).includes(SECRET));
  // Within the depth, the credential is redacted and the rest is kept.
  const shallow = boundInput(nested(60));
  assert.equal(shallow.ok, true);
  assert.ok(!JSON.stringify(shallow).includes(SECRET));
  assert.ok(JSON.stringify(shallow).includes('[redacted]'));
  // Deep arguments with nothing credential-like are still sent.
  let plain: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 100; i++) plain = { a: plain };
  assert.equal(boundInput(plain).ok, true);
});

test('an observer granted inputs never receives a credential nested 70 levels deep', async () => {
  const dir = scratchDir();
  const observer = makePeer(dir, 'obs', { observer: true, policy: observePolicy(['files']), filter: { rules: [{ match: {}, input: true }] } });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({
    name: 'store', description: 'Stores a document', inputSchema: { type: 'object' }, classes: ['files'],
    handler: async () => textResult('stored'),
  });
  try {
    await host.connectServer(observer.config);
    await observer.waitFor((e) => e.some((x) => x.event === 'observe-response'), 'filter');
    const stream = host.openStream('c');
    const inferenceId = stream.beginInference();
    for (const depth of [70, 3]) {
      const outcome = await host.dispatch({ inferenceId, name: 'store', input: nested(depth) });
      assert.equal(outcome.status, 'completed');
    }
    stream.end();
    const started = (await observer.waitFor(
      (e) => e.filter((x) => x.event === 'lifecycle' && x.params.phase === 'completed').length === 2,
      'both calls completed',
    )).filter((x) => x.event === 'lifecycle' && x.params.phase === 'started').map((x) => x.params);
    assert.equal(started.length, 2);
    assert.equal(started[0].inputWithheld, true);
    assert.ok(!('input' in started[0]));
    assert.deepEqual(started[1].input, { a: { a: { password: '[redacted]', note: 'x' } } });
    assert.equal(started[1].inputAltered, true);
    // Nowhere in anything the observer process received.
    assert.ok(!readFileSync(observer.logPath, 'utf8').includes(SECRET), 'the secret reached the observer');
  } finally {
    await host.close();
  }
});
