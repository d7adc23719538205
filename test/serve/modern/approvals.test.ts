/**
 * Approvals for a 2026-07-28 client of `toolcell serve` (stdio, raw JSON lines as such a client
 * writes them): a call that needs a person's approval is answered `input_required` with the
 * approval form; the client re-sends the call with its answer and the `requestState` it got.
 * Fail closed and bound to the exact call: nothing runs before the answer, a decline runs
 * nothing, a requestState re-sent with other arguments cancels the call it belonged to, a used
 * or invented requestState is refused, and a client without elicitation is declined.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { makePeer, REPO_ROOT, scratchDir, type Peer } from '../../helpers/peers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');

function meta(capabilities: Record<string, unknown>) {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1.0.0' },
  };
}
const ELICIT = { elicitation: { form: {} } };

interface Serve {
  provider: Peer;
  request(method: string, params: Record<string, unknown>): Promise<any>;
  close(): void;
}

function startServe(): Serve {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'send', classes: ['comms'] }, { name: 'look', classes: ['read'] }] });
  const configPath = join(dir, 'toolcell.json');
  writeFileSync(configPath, JSON.stringify({ servers: [provider.config], codeExecution: { languages: ['javascript'] }, approvals: { classes: ['comms'] } }));
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--config', configPath], { cwd: REPO_ROOT });
  child.stderr.resume();
  const waiting = new Map<number, (m: any) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  let ids = 0;
  return {
    provider,
    request: (method, params) => {
      const id = ++ids;
      const answered = new Promise<any>((resolve) => waiting.set(id, resolve));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return answered;
    },
    close: () => void child.kill('SIGTERM'),
  };
}

const sends = (provider: Peer) => provider.events().filter((e) => e.event === 'call' && (e.params as any)?.name === 'send').length;
const looks = (provider: Peer) => provider.events().filter((e) => e.event === 'call' && (e.params as any)?.name === 'look').length;

test('2026 stdio: an approval is an input_required result; the retry with the answer runs the call once', async () => {
  const serve = startServe();
  try {
    const call = { name: 'x--send', arguments: { to: 'ada' } };
    const first = await serve.request('tools/call', { ...call, _meta: meta(ELICIT) });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const [[key, asked]] = Object.entries(first.result.inputRequests) as [string, any][];
    assert.equal(asked.method, 'elicitation/create');
    assert.match(asked.params.message, /^Allow x--send, called by model call /);
    assert.match(asked.params.message, /"to":"ada"/);
    assert.deepEqual(asked.params._meta['toolcell/approval'].tools.map((t: any) => t.tool), ['x--send']);
    assert.equal(typeof first.result.requestState, 'string');
    assert.equal(sends(serve.provider), 0, 'nothing runs before the answer');

    const done = await serve.request('tools/call', { ...call, _meta: meta(ELICIT), inputResponses: { [key]: { action: 'accept', content: {} } }, requestState: first.result.requestState });
    assert.equal(done.result?.resultType, 'complete', JSON.stringify(done));
    assert.ok(!done.result.isError, JSON.stringify(done));
    assert.equal(sends(serve.provider), 1);

    // The state was single-use: presenting it again runs nothing.
    const replay = await serve.request('tools/call', { ...call, _meta: meta(ELICIT), inputResponses: { [key]: { action: 'accept', content: {} } }, requestState: first.result.requestState });
    assert.equal(replay.error?.code, -32602, JSON.stringify(replay));
    assert.equal(sends(serve.provider), 1);

    // A call that needs no approval is answered at once.
    const plain = await serve.request('tools/call', { name: 'x--look', arguments: {}, _meta: meta(ELICIT) });
    assert.equal(plain.result?.resultType, 'complete');
    assert.equal(looks(serve.provider), 1);
  } finally {
    serve.close();
  }
});

test('2026 stdio: a decline runs nothing; a requestState re-sent for other arguments cancels its call; an invented one is refused', async () => {
  const serve = startServe();
  try {
    const call = { name: 'x--send', arguments: { to: 'ada' } };
    const first = await serve.request('tools/call', { ...call, _meta: meta(ELICIT) });
    const key = Object.keys(first.result.inputRequests)[0]!;
    const declined = await serve.request('tools/call', { ...call, _meta: meta(ELICIT), inputResponses: { [key]: { action: 'decline' } }, requestState: first.result.requestState });
    assert.equal(declined.result?.isError, true, JSON.stringify(declined));
    assert.match(declined.result.content[0].text, /declined by the client's user/);
    assert.equal(sends(serve.provider), 0);

    // An approval asked for { to: 'ada' } does not approve { to: 'mallory' }.
    const again = await serve.request('tools/call', { ...call, _meta: meta(ELICIT) });
    const key2 = Object.keys(again.result.inputRequests)[0]!;
    const swapped = await serve.request('tools/call', { name: 'x--send', arguments: { to: 'mallory' }, _meta: meta(ELICIT), inputResponses: { [key2]: { action: 'accept', content: {} } }, requestState: again.result.requestState });
    assert.equal(swapped.error?.code, -32602, JSON.stringify(swapped));
    assert.match(swapped.error.message, /different request/);
    const late = await serve.request('tools/call', { ...call, _meta: meta(ELICIT), inputResponses: { [key2]: { action: 'accept', content: {} } }, requestState: again.result.requestState });
    assert.equal(late.error?.code, -32602, 'the call it belonged to is gone');
    const invented = await serve.request('tools/call', { ...call, _meta: meta(ELICIT), inputResponses: { 'input-1': { action: 'accept', content: {} } }, requestState: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(invented.error?.code, -32602);
    assert.equal(sends(serve.provider), 0, 'nothing ran');
  } finally {
    serve.close();
  }
});

test('2026 stdio: a client that did not declare elicitation is declined, never asked, never approved', async () => {
  const serve = startServe();
  try {
    const result = await serve.request('tools/call', { name: 'x--send', arguments: {}, _meta: meta({}) });
    assert.equal(result.result?.resultType, 'complete', JSON.stringify(result));
    assert.equal(result.result.isError, true);
    assert.match(result.result.content[0].text, /did not declare the elicitation capability/);
    assert.equal(sends(serve.provider), 0);
    // code_execution with an approval, the retry path, over the same stdio.
    const script = { name: 'code_execution', arguments: { code: 'await tools.x__send({ n: 1 }); return "sent";' } };
    const first = await serve.request('tools/call', { ...script, _meta: meta(ELICIT) });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const key = Object.keys(first.result.inputRequests)[0]!;
    const done = await serve.request('tools/call', { ...script, _meta: meta(ELICIT), inputResponses: { [key]: { action: 'accept', content: { forConversation: false } } }, requestState: first.result.requestState });
    assert.equal(done.result?.structuredContent?.value, 'sent', JSON.stringify(done));
    assert.equal(sends(serve.provider), 1);
  } finally {
    serve.close();
  }
});
