/** The one dispatch path: refusals, stream ends, script calls, timeouts, throwing handlers, shutdown. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import { makePeer, scratchDir, waitUntil } from '../helpers/peers.ts';
import { registerWaitTool } from '../helpers/tools.ts';

function hostWithEvents() {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  return { host, events };
}

test('an unknown tool is refused with the closest names and produces no lifecycle event', async () => {
  const { host, events } = hostWithEvents();
  host.registerTool({ name: 'search_files', description: 's', inputSchema: { type: 'object' }, classes: ['files'], handler: async () => textResult('') });
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const outcome = await host.dispatch({ inferenceId, name: 'search_file', input: {} });
  assert.equal(outcome.status, 'refused');
  assert.match(outcome.result.content[0]!.text as string, /search_files/);
  assert.equal(events.length, 0);
  const bad = await host.dispatch({ inferenceId, name: 'search_files', input: [1, 2] });
  assert.equal(bad.refusal?.code, 'invalid_arguments');
  assert.equal(events.length, 0);
  await host.close();
});

test('arguments that fail the input schema are refused with a clear message', async () => {
  const { host, events } = hostWithEvents();
  host.registerTool({
    name: 'add',
    description: 'adds',
    inputSchema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
    classes: ['shell'],
    handler: async (args) => textResult(String(args.a)),
  });
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const outcome = await host.dispatch({ inferenceId, name: 'add', input: { a: 'one' } });
  assert.equal(outcome.refusal?.code, 'invalid_arguments');
  assert.match(outcome.result.content[0]!.text as string, /a/);
  assert.equal(events.length, 0);
  await host.close();
});

test('a handler that throws synchronously after the call opened is started → failed', async () => {
  const { host, events } = hostWithEvents();
  let worked = false;
  host.registerTool({
    name: 'boom',
    description: 'b',
    inputSchema: { type: 'object' },
    classes: ['shell'],
    handler: (() => {
      worked = true;
      throw new Error('kaboom');
    }) as any,
  });
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const outcome = await host.dispatch({ inferenceId, name: 'boom', input: {} });
  assert.ok(worked);
  assert.equal(outcome.status, 'failed');
  assert.deepEqual(events.map((e) => e.phase), ['started', 'failed']);
  await host.close();
});

test('a result that never comes back is ended failed by the safety timeout', async () => {
  const { host, events } = hostWithEvents();
  host.registerTool({ name: 'hang', description: 'h', inputSchema: { type: 'object' }, classes: ['shell'], handler: () => new Promise(() => {}) });
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const outcome = await host.dispatch({ inferenceId, name: 'hang', input: {}, timeoutMs: 50 });
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.result.content[0]!.text as string, /timed out/);
  assert.deepEqual(events.map((e) => e.phase), ['started', 'failed']);
  await host.close();
});

test("a stream's end aborts its own model calls only: not another stream's, never a script's", async () => {
  const { host, events } = hostWithEvents();
  const releases = registerWaitTool(host);
  const a = host.openStream('conv_a');
  const b = host.openStream('conv_b');
  const infA = a.beginInference();
  const infB = b.beginInference();
  const modelA = host.dispatch({ inferenceId: infA, name: 'wait', input: {} });
  const scriptA = host.dispatch({ inferenceId: infA, name: 'wait', input: {}, parentToolCallId: 'tc_parent' });
  const modelB = host.dispatch({ inferenceId: infB, name: 'wait', input: {} });
  assert.equal(a.end(), 1, 'one model call of stream A was aborted');
  assert.equal((await modelA).status, 'aborted');
  for (const release of releases) release();
  assert.equal((await scriptA).status, 'completed', 'the script call ended with its own result');
  assert.equal((await modelB).status, 'completed', "stream B's call was untouched");
  const script = events.filter((e) => e.parentToolCallId === 'tc_parent').map((e) => e.phase);
  assert.deepEqual(script, ['started', 'completed']);
  assert.equal(events.filter((e) => e.phase === 'aborted').length, 1);
  await host.close();
});

test('shutdown attempts the terminal of open calls and reaps every server', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const { host, events } = hostWithEvents();
  const connection = await host.connectServer(provider.config);
  const pid = connection.pid!;
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const pending = host.dispatch({ inferenceId, name: 'x--run', input: { hold_file: join(dir, 'never') } });
  await provider.waitFor((e) => e.some((x) => x.event === 'call'), 'the provider got the call');
  await host.close();
  assert.equal((await pending).status, 'aborted');
  assert.deepEqual(events.map((e) => e.phase), ['started', 'aborted']);
  await waitUntil(() => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, 'the server process is gone');
  const after = await host.dispatch({ inferenceId, name: 'x--run', input: {} });
  assert.equal(after.refusal?.code, 'shutting_down');
});

test('a held provider call completes once its file latch appears', async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'run', classes: ['shell'] }] });
  const { host } = hostWithEvents();
  await host.connectServer(provider.config);
  const inferenceId = host.beginInference({ conversationId: 'c' });
  const latch = join(dir, 'latch');
  const pending = host.dispatch({ inferenceId, name: 'x--run', input: { hold_file: latch } });
  await provider.waitFor((e) => e.some((x) => x.event === 'call'), 'the provider got the call');
  writeFileSync(latch, '');
  assert.equal((await pending).status, 'completed');
  await host.close();
});

test("a call budget counts an inference's calls, the model's and its script's, and refuses the rest before they open", async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }), callsPerInference: 3 });
  const events: HostLifecycleEvent[] = [];
  host.on('lifecycle', (e) => events.push(e));
  host.registerTool({ name: 'ping', description: 'p', inputSchema: { type: 'object' }, classes: ['web'], handler: async () => textResult('pong') });
  const { registerCodeExecution } = await import('../../src/code-execution/index.ts');
  const codeExecution = registerCodeExecution(host, { languages: ['javascript'] });
  try {
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const outcome = await host.dispatch({
      inferenceId,
      name: 'code_execution',
      input: { code: 'const out = []; for (let i = 0; i < 4; i++) { try { out.push(await tools.ping({})); } catch (e) { out.push(e.message); } } return out;' },
    });
    const value = (outcome.result.structuredContent as { value: string[] }).value;
    assert.deepEqual(value.slice(0, 2), ['pong', 'pong'], 'the parent is the first call of the budget, two more fit');
    assert.match(value[2]!, /budget of 3 calls/);
    assert.match(value[3]!, /budget of 3 calls/);
    assert.equal(events.filter((e) => e.phase === 'started').length, 3, 'refused calls never opened');
    const fresh = host.beginInference({ conversationId: 'c' });
    assert.equal((await host.dispatch({ inferenceId: fresh, name: 'ping', input: {} })).status, 'completed', 'a new inference has a new budget');
  } finally {
    await codeExecution.close();
    await host.close();
  }
});
