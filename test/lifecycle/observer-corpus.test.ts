/**
 * A real observer process granted inputs receives none of the 29 spellings (issue 42.2), nor a
 * secret in the identity every event carries: the conversation id (chosen by a serve client)
 * and the tool's name went into each notification as they were.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { makePeer, observePolicy, scratchDir } from '../helpers/peers.ts';
import { CORPUS, S } from './redaction-corpus.ts';

test('an observer granted inputs receives none of the 29 spellings, in inputs or identity', async () => {
  const dir = scratchDir();
  const observer = makePeer(dir, 'obs', { observer: true, policy: observePolicy(['files']), filter: { rules: [{ match: {}, input: true }] } });
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  host.registerTool({ name: 'store', description: 'Stores', inputSchema: { type: 'object' }, classes: ['files'], handler: async () => textResult('stored') });
  try {
    await host.connectServer(observer.config);
    await observer.waitFor((e) => e.some((x) => x.event === 'observe-response'), 'filter');
    const stream = host.openStream(`session?access_token=${S}`);
    const inferenceId = stream.beginInference();
    for (const c of CORPUS) assert.equal((await host.dispatch({ inferenceId, name: 'store', input: c.input })).status, 'completed');
    stream.end();
    const events = await observer.waitFor(
      (e) => e.filter((x) => x.event === 'lifecycle' && x.params.phase === 'completed').length === CORPUS.length,
      'every call completed',
    );
    const started = events.filter((x) => x.event === 'lifecycle' && x.params.phase === 'started');
    assert.equal(started.length, CORPUS.length);
    assert.match(started[0]!.params.conversationId, /^session\?access_token=\[redacted\]$/);
    const received = readFileSync(observer.logPath, 'utf8');
    for (const c of CORPUS) for (const secret of c.secrets) assert.ok(!received.includes(secret), `${c.name} reached the observer`);
  } finally {
    await host.close();
  }
});
