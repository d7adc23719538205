/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) as a 2026-07-28 client
 * (transports/era-tasks.ts): `connectServer` with `protocolEra: "auto"` against a real
 * `toolcell serve` process (2026 era on its stdio pipe) in front of server-everything, whose
 * `simulate-research-query` requires tasks. The call declares the extension, serve answers
 * `resultType: "task"`, the client polls `tasks/get`; the task's `input_required` question is
 * answered by the host's own `serverRequests.elicitation` handler (attributed to the call) and
 * sent back with `tasks/update`; the result is the call's. Ending the call's stream sends
 * `tasks/cancel`, and serve cancels the provider's task behind it (seen through a wire tee).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText } from '../../src/host/results.ts';
import type { WireFrame } from '../../src/mcpl/transports/types.ts';
import { TASKS_EXTENSION } from '../../src/mcpl/transports/era-tasks.ts';
import { REPO_ROOT, scratchDir, waitUntil } from '../helpers/peers.ts';
import { binPath } from '../real-servers/servers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const TEE = join(REPO_ROOT, 'test', 'serve', 'fixtures', 'wire-tee.mjs');
const TOOL = 'tc--ev--simulate-research-query';
const method = (f: WireFrame) => (f.message as { method?: string }).method;
const params = (f: WireFrame) => (f.message as { params?: Record<string, any> }).params ?? {};

test('auto era: a tool that requires tasks is called as the tasks extension against toolcell serve (2026): poll, input_required answered by tasks/update, result; a call given up sends tasks/cancel', { timeout: 240_000 }, async () => {
  const dir = scratchDir();
  const config = join(dir, 'toolcell.json');
  // server-everything behind a tee: what serve sends it is logged (its tasks/cancel).
  const log = join(dir, 'provider-wire.log');
  const toProvider = (m: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('> ') && l.includes(`"method":"${m}"`)).length : 0);
  writeFileSync(config, JSON.stringify({ servers: [{ id: 'ev', command: process.execPath, args: [TEE, log, process.execPath, binPath('everything')] }], codeExecution: false }));
  const asked: { message: string; toolCallId: string | undefined }[] = [];
  const host = new ToolHost({
    logger: pino({ level: 'silent' }),
    serverRequests: {
      elicitation: async (request, ctx) => {
        asked.push({ message: request.message, toolCallId: ctx.toolCallId });
        return { action: 'accept', content: { interpretation: 'historical' } };
      },
    },
  });
  const wire: WireFrame[] = [];
  try {
    await host.connectServer({ id: 'tc', command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, protocolEra: 'auto', wireLog: (f) => void wire.push(f) });
    // server-everything registers its task tool after its session initialized; serve re-lists it, and the 2026 listing follows.
    await waitUntil(async () => {
      if (host.listTools().some((t) => t.name === TOOL)) return true;
      await host.server('tc')!.refreshTools();
      return undefined;
    }, 'the task tool to be listed', 60_000);
    assert.ok(!wire.some((f) => f.direction === 'out' && method(f) === 'initialize'), 'the 2026 era (no handshake)');

    const progress: string[] = [];
    const outcome = await host.dispatch({
      inferenceId: host.beginInference({ conversationId: 'c1' }),
      name: TOOL,
      input: { topic: 'lighthouses', ambiguous: true },
      timeoutMs: 120_000,
      onProgress: (p) => void progress.push(p.message ?? ''),
    });
    assert.equal(outcome.status, 'completed', resultText(outcome.result));
    assert.match(resultText(outcome.result), /lighthouses \(historical\)/);
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.message, /lighthouses/);
    assert.equal(asked[0]!.toolCallId, outcome.toolCallId, 'attributed to the call');
    // The task's status messages (server-everything's stages, through serve's task) are the call's progress.
    assert.ok(progress.some((m) => /Gathering sources|Analyzing content|Synthesizing/.test(m)), JSON.stringify(progress));
    const call = wire.find((f) => f.direction === 'out' && method(f) === 'tools/call' && params(f).name === 'ev--simulate-research-query')!;
    assert.ok(call, 'the call went out');
    assert.deepEqual(params(call)._meta['io.modelcontextprotocol/clientCapabilities'].extensions, { [TASKS_EXTENSION]: {} }, 'the task call declares the extension');
    assert.equal(params(call)._meta['dev.toolcell/asTask'], undefined, 'the connection\'s marker does not go on the wire');
    assert.ok(wire.some((f) => f.direction === 'in' && (f.message as any).id === (call.message as any).id && (f.message as any).result?.resultType === 'task'), 'serve answered a task');
    const out = wire.filter((f) => f.direction === 'out').map(method);
    assert.ok(out.includes('tasks/get'), 'polled');
    const update = wire.find((f) => f.direction === 'out' && method(f) === 'tasks/update')!;
    assert.deepEqual(Object.values(params(update).inputResponses), [{ action: 'accept', content: { interpretation: 'historical' } }]);
    // A tool that does not need a task is called without the extension.
    const listing = wire.find((f) => f.direction === 'out' && method(f) === 'tools/list')!;
    assert.equal(params(listing)._meta['io.modelcontextprotocol/clientCapabilities'].extensions, undefined);

    // The caller gives the call up: the task is cancelled at the server.
    const stream = host.openStream('c2');
    const given = host.dispatch({ inferenceId: stream.beginInference(), name: TOOL, input: { topic: 'tides' }, timeoutMs: 120_000 });
    const polls = () => wire.filter((f) => f.direction === 'out' && method(f) === 'tasks/get').length;
    const before = polls();
    await waitUntil(() => polls() > before || undefined, 'the second task to be polled', 60_000);
    stream.end('the caller gave up');
    const ended = await given;
    assert.notEqual(ended.status, 'completed');
    const cancel = await waitUntil(() => wire.find((f) => f.direction === 'out' && method(f) === 'tasks/cancel'), 'tasks/cancel to be sent', 30_000);
    const answer = await waitUntil(() => wire.find((f) => f.direction === 'in' && (f.message as any).id === (cancel.message as any).id), 'tasks/cancel to be answered', 30_000);
    assert.ok('result' in (answer.message as object), JSON.stringify(answer.message));
    // serve's task for it was cancelled, and so the provider's task behind it (serve's own 2025 task call).
    await waitUntil(() => toProvider('tasks/cancel') > 0 || undefined, 'tasks/cancel to reach server-everything', 60_000);
  } finally {
    await host.close();
  }
});
