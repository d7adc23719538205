/**
 * Durable runs with the SQLite store, end to end (docs/durable.md): a script makes three calls
 * to a tool that counts its executions (a real MCP server process logging each call), then a
 * call the scan cannot see and that needs the client's approval; serve answers
 * `input_required`, the process is SIGKILLed and started again in place on the same file, the
 * client's retry with its approval resumes the run there by replay, and each counted call ran
 * exactly once — also for JS and Python scripts whose calls carry clock and random reads (the
 * journal records them). A replay whose journal was changed is refused; an approval given for
 * other arguments than those the resumed run would run (a stored seed changed) is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePeer, scratchDir, type Peer } from '../helpers/peers.ts';
import { sealRecord } from '../../src/store/journal.ts';
import { post, startServe, type ServeProcess } from './serve-process.ts';

const calls = (peer: Peer, name: string) => peer.events().filter((e) => e.event === 'call' && e.params?.name === name);

/** Three counted calls, then `send` by a computed name (no up-front approval: the JIT one). */
export const JS_SCRIPT = `
const seen = [];
for (let i = 1; i <= 3; i++) seen.push((await tools.x__count({ i })).args.i);
const name = ['x', 'send'].join('__');
const sent = await tools[name]({ to: 'ada', after: seen });
return { seen, sent: sent.args };
`;

function setup(script = JS_SCRIPT, language = 'javascript', engine: 'quickjs' | 'v8' = 'quickjs') {
  const dir = scratchDir();
  const peer = makePeer(dir, 'x', { tools: [{ name: 'count', classes: ['read'] }, { name: 'send', classes: ['comms'] }] });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({
    servers: [peer.config],
    codeExecution: { languages: ['javascript', 'python'], engine },
    approvals: { classes: ['comms'] },
    store: 'sqlite:./runs.db',
  }));
  const call = { name: 'code_execution', arguments: { code: script, language } };
  return { dir, peer, configPath, call, db: join(dir, 'runs.db') };
}

/** Starts the run; returns serve's input_required answer. */
async function pause(serve: ServeProcess, call: Record<string, unknown>): Promise<{ key: string; state: string; asked: any }> {
  const first = await post(serve.url, 'tools/call', call);
  assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
  const [[key, asked]] = Object.entries(first.result.inputRequests) as [string, any][];
  assert.equal(asked.params._meta['toolcell/approval'].kind, 'call');
  return { key, state: first.result.requestState, asked };
}

/**
 * Starts `script`, pauses at its JIT approval, SIGKILLs serve, starts it again on the same file
 * and approves: each counted call ran once. `expected` checks the result against the calls the
 * peer saw (default: the JS_SCRIPT shape).
 */
export async function killAndResume(script: string, language: string, expected?: (value: any, peer: Peer) => void, engine: 'quickjs' | 'v8' = 'quickjs'): Promise<void> {
  const { peer, configPath, call } = setup(script, language, engine);
  let serve = await startServe(configPath);
  try {
    const { key, state } = await pause(serve, call);
    assert.equal(calls(peer, 'count').length, 3);
    assert.equal(calls(peer, 'send').length, 0, 'nothing is sent before the approval');
    await serve.kill('SIGKILL');
    serve = await startServe(configPath);
    const done = await post(serve.url, 'tools/call', { ...call, inputResponses: { [key]: { action: 'accept', content: {} } }, requestState: state });
    assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
    assert.ok(!done.result.isError, JSON.stringify(done.result));
    if (expected !== undefined) expected(done.result.structuredContent.value, peer);
    else assert.deepEqual(done.result.structuredContent.value, { seen: [1, 2, 3], sent: { to: 'ada', after: [1, 2, 3] } });
    assert.deepEqual(calls(peer, 'count').map((c) => c.params.arguments.i), [1, 2, 3], 'each counted call ran exactly once');
    assert.equal(calls(peer, 'send').length, 1);
    // The state was single-use.
    const again = await post(serve.url, 'tools/call', { ...call, inputResponses: { [key]: { action: 'accept', content: {} } }, requestState: state });
    assert.equal(again.error?.code, -32602, JSON.stringify(again));
    assert.equal(calls(peer, 'send').length, 1);
  } finally {
    await serve.kill('SIGTERM');
  }
}

test('sqlite store: a JavaScript run paused for approval survives a SIGKILL; resumed in place, each call ran once', async () => {
  await killAndResume(JS_SCRIPT, 'javascript');
});

test('sqlite store: a Python run paused for approval survives a SIGKILL; resumed in place, each call ran once', async () => {
  const script = [
    'seen = []',
    'for i in range(1, 4):',
    '    seen.append((await tools.x__count(i=i))["args"]["i"])',
    "sent = await getattr(tools, '__'.join(['x', 'send']))(to='ada', after=seen)",
    '{"seen": seen, "sent": sent["args"]}',
  ].join('\n');
  await killAndResume(script, 'python');
});

/** The counted calls carry the clock and random reads made before them; `send` repeats the first ones. */
function sameReads(value: any, peer: Peer): void {
  const counted = calls(peer, 'count').map((c) => c.params.arguments);
  assert.equal(counted.length, 3);
  for (const args of counted) {
    assert.equal(typeof args.t, 'number');
    assert.ok(args.r >= 0 && args.r < 1, JSON.stringify(args));
    assert.equal(args.t0, counted[0].t0);
    assert.equal(args.r0, counted[0].r0);
  }
  const [sent] = calls(peer, 'send').map((c) => c.params.arguments);
  // The replay read the same clock and drew the same numbers as the run that paused.
  assert.deepEqual(sent, { to: 'ada', t0: counted[0].t0, r0: counted[0].r0, day: counted[0].day, last: counted[2].r });
  assert.deepEqual(value, sent);
}

/** JS: clock reads through Date.now(), new Date() and Date(), random ones through Math.random(). */
const JS_READS_SCRIPT = `
const t0 = Date.now();
const r0 = Math.random();
const day = new Date().toISOString().slice(0, 10) + typeof Date();
let last;
for (let i = 1; i <= 3; i++) {
  last = Math.random();
  await tools.x__count({ i, t0, r0, day, t: Date.now(), r: last });
}
const name = ['x', 'send'].join('__');
return (await tools[name]({ to: 'ada', t0, r0, day, last })).args;
`;

test('sqlite store: a JavaScript run whose calls carry clock and random reads resumes after a SIGKILL with the same values, each call once', async () => {
  await killAndResume(JS_READS_SCRIPT, 'javascript', sameReads);
});

test('sqlite store (V8 engine): a run whose calls carry clock and random reads resumes after a SIGKILL with the same values, each call once', async () => {
  await killAndResume(JS_READS_SCRIPT, 'javascript', sameReads, 'v8');
});

test('sqlite store (V8 engine): a JavaScript run paused for approval survives a SIGKILL; resumed in place, each call ran once', async () => {
  await killAndResume(JS_SCRIPT, 'javascript', undefined, 'v8');
});

test('sqlite store: a Python run whose calls carry clock, random and uuid reads resumes after a SIGKILL with the same values, each call once', async () => {
  const script = [
    'import random, time, uuid',
    'from datetime import datetime',
    't0 = time.time()',
    'r0 = random.random() + len(str(uuid.uuid4())) * 0',
    'u = str(uuid.uuid4())',
    "day = datetime.now().strftime('%Y-%m-%d')",
    'last = None',
    'for i in range(1, 4):',
    '    last = random.random()',
    '    await tools.x__count(i=i, t0=t0, r0=r0, day=day + u, t=time.time(), r=last)',
    "sent = await getattr(tools, '__'.join(['x', 'send']))(to='ada', t0=t0, r0=r0, day=day + u, last=last)",
    'sent["args"]',
  ].join('\n');
  await killAndResume(script, 'python', sameReads);
});

test('sqlite store: a replay whose journal holds another result than the one recorded is refused, and nothing more runs', async () => {
  const { peer, configPath, call, db } = setup();
  let serve = await startServe(configPath);
  try {
    const { key, state } = await pause(serve, call);
    await serve.kill('SIGKILL');
    // Whoever can write the store changes what the first call returned.
    const { default: Database } = await import('better-sqlite3');
    const file = new Database(db);
    const row = file.prepare('SELECT data FROM toolcell_runs WHERE id = ?').get(state) as { data: string };
    const record = JSON.parse(row.data);
    record.journal[0].outcome.result.structuredContent = { args: { i: 41 } };
    file.prepare('UPDATE toolcell_runs SET data = ? WHERE id = ?').run(JSON.stringify(record), state);
    file.close();
    serve = await startServe(configPath);
    const done = await post(serve.url, 'tools/call', { ...call, inputResponses: { [key]: { action: 'accept', content: {} } }, requestState: state });
    assert.equal(done.error?.code, -32602, JSON.stringify(done));
    assert.match(done.error.message, /journal entry 1 \(x--count\) holds a result other than the one recorded/);
    assert.equal(calls(peer, 'count').length, 3, 'no counted call ran again');
    assert.equal(calls(peer, 'send').length, 0, 'nothing was sent');
  } finally {
    await serve.kill('SIGTERM');
  }
});

test('sqlite store: an approval applies only to the arguments it was given for; a resumed run that would send others is refused', async () => {
  // The recipient is drawn at random. The journal holds the seed, so a faithful replay draws the
  // same one; here whoever can write the store changes the seed (and reseals the record), so the
  // replay asks to send other arguments than the person approved.
  const script = `
for (let i = 1; i <= 3; i++) await tools.x__count({ i });
const name = ['x', 'send'].join('__');
return (await tools[name]({ to: 'user-' + Math.random() })).args;
`;
  const { peer, configPath, call, db } = setup(script);
  let serve = await startServe(configPath);
  try {
    const { key, state, asked } = await pause(serve, call);
    const approvedDigest = asked.params._meta['toolcell/approval'].argumentsDigest;
    await serve.kill('SIGKILL');
    const { default: Database } = await import('better-sqlite3');
    const file = new Database(db);
    const row = file.prepare('SELECT data FROM toolcell_runs WHERE id = ?').get(state) as { data: string };
    const { seal: _seal, ...record } = JSON.parse(row.data);
    assert.equal(record.seed.length, 4, 'the run\'s seed is journaled');
    record.seed[0] ^= 1;
    file.prepare('UPDATE toolcell_runs SET data = ? WHERE id = ?').run(JSON.stringify(sealRecord(state, record)), state);
    file.close();
    serve = await startServe(configPath);
    const done = await post(serve.url, 'tools/call', { ...call, inputResponses: { [key]: { action: 'accept', content: {} } }, requestState: state });
    assert.equal(done.error?.code, -32000, JSON.stringify(done));
    assert.match(done.error.message, /approval refused: the resumed run would run x--send with sha256:[0-9a-f]{64}, but the approval was given for /);
    assert.ok(done.error.message.includes(approvedDigest));
    assert.equal(calls(peer, 'send').length, 0, 'what nobody approved never ran');
    assert.equal(calls(peer, 'count').length, 3);
  } finally {
    await serve.kill('SIGTERM');
  }
});
