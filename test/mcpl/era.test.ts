/**
 * `connectServer` with `protocolEra: "auto"`: a server that speaks 2026-07-28 (here `toolcell
 * serve`, a real process answering that era) is spoken to without `initialize` — discover, the
 * era's `_meta` on every request — and its `input_required` results (an approval) are answered
 * by the host's own `serverRequests.elicitation` handler, attributed to the call, then re-sent;
 * a 2025 server (the official server-everything) gets the handshake after its discover fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText } from '../../src/host/results.ts';
import type { WireFrame } from '../../src/mcpl/transports/types.ts';
import { makePeer, REPO_ROOT, scratchDir } from '../helpers/peers.ts';
import { officialServer } from '../real-servers/servers.ts';

const CLI = join(REPO_ROOT, 'src', 'cli', 'main.ts');
const method = (f: WireFrame) => (f.message as { method?: string }).method;

test('auto era: a 2026 server (toolcell serve over stdio) is spoken to statelessly; its approval comes back input_required and is answered by the elicitation handler', { timeout: 120_000 }, async () => {
  const dir = scratchDir();
  const provider = makePeer(dir, 'x', { tools: [{ name: 'send', classes: ['comms'] }] });
  const config = join(dir, 'toolcell.json');
  writeFileSync(config, JSON.stringify({ servers: [provider.config], codeExecution: false, approvals: { classes: ['comms'] } }));
  const asked: { message: string; toolCallId: string | undefined }[] = [];
  const host = new ToolHost({
    logger: pino({ level: 'silent' }),
    serverRequests: {
      elicitation: async (params, ctx) => {
        asked.push({ message: params.message, toolCallId: ctx.toolCallId });
        return { action: 'accept', content: {} };
      },
    },
  });
  const wire: WireFrame[] = [];
  try {
    await host.connectServer({ id: 'tc', command: process.execPath, args: ['--import', 'tsx', CLI, 'serve', '--config', config], cwd: REPO_ROOT, protocolEra: 'auto', wireLog: (f) => void wire.push(f) });
    assert.ok(host.listTools().some((t) => t.name === 'tc--x--send'), JSON.stringify(host.listTools().map((t) => t.name)));
    const out = wire.filter((f) => f.direction === 'out');
    assert.equal(method(out[0]!), 'server/discover');
    assert.ok(!out.some((f) => method(f) === 'initialize'), 'no handshake');
    const list = out.find((f) => method(f) === 'tools/list')!;
    assert.equal((list.message as any).params._meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
    assert.ok((list.message as any).params._meta['io.modelcontextprotocol/clientCapabilities'].elicitation, 'the client declares what it has handlers for');

    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c1' }), name: 'tc--x--send', input: { to: 'ada' } });
    assert.equal(outcome.status, 'completed', resultText(outcome.result));
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.message, /^Allow x--send/);
    assert.equal(asked[0]!.toolCallId, outcome.toolCallId, 'attributed to the call');
    const calls = wire.filter((f) => f.direction === 'out' && method(f) === 'tools/call').map((f) => (f.message as any).params);
    assert.equal(calls.length, 2, 'the call, then its retry with the answer');
    assert.equal(typeof calls[1].requestState, 'string');
    assert.deepEqual(Object.values(calls[1].inputResponses), [{ action: 'accept', content: {} }]);
    assert.ok(wire.some((f) => f.direction === 'in' && (f.message as any).result?.resultType === 'input_required'));
    assert.equal(provider.events().filter((e) => e.event === 'call').length, 1);
  } finally {
    await host.close();
  }
});

test('auto era: a 2025 server (server-everything) answers discover with an error, and gets the handshake', { timeout: 120_000 }, async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const everything = officialServer('everything', 'ev', { protocolEra: 'auto' });
  try {
    await host.connectServer(everything.config);
    assert.ok(host.listTools().some((t) => t.name === 'ev--echo'));
    const out = everything.wire.frames.filter((f) => f.direction === 'out').map(method);
    assert.equal(out[0], 'server/discover');
    assert.equal(out[1], 'initialize');
    const echo = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'ev--echo', input: { message: 'hi' } });
    assert.match(resultText(echo.result), /hi/);
    const call = everything.wire.frames.find((f) => f.direction === 'out' && method(f) === 'tools/call')!;
    assert.equal((call.message as any).params._meta?.['io.modelcontextprotocol/protocolVersion'], undefined, 'no 2026 _meta on the handshake era');
  } finally {
    await host.close();
  }
});

test('auto era: a server built with the official SDK v2 (2026-07-28 only) — discover, calls, and an input_required elicitation answered by the handler', { timeout: 120_000 }, async () => {
  const asked: { message: string; toolCallId: string | undefined }[] = [];
  const host = new ToolHost({
    logger: pino({ level: 'silent' }),
    serverRequests: {
      elicitation: async (params, ctx) => {
        asked.push({ message: params.message, toolCallId: ctx.toolCallId });
        return { action: 'accept', content: { name: 'Ada' } };
      },
    },
  });
  const wire: WireFrame[] = [];
  try {
    await host.connectServer({ id: 'v2', command: process.execPath, args: [join(REPO_ROOT, 'test', 'mcpl', 'fixtures', 'v2-server.mjs')], protocolEra: 'auto', wireLog: (f) => void wire.push(f) });
    assert.deepEqual(host.listTools().map((t) => t.name).sort(), ['v2--echo', 'v2--greet']);
    assert.ok(!wire.some((f) => f.direction === 'out' && method(f) === 'initialize'), 'no handshake');
    const echo = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'v2--echo', input: { text: 'hi' } });
    assert.equal(resultText(echo.result), 'echo: hi');
    const greet = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'v2--greet', input: {} });
    assert.equal(greet.status, 'completed', resultText(greet.result));
    assert.equal(resultText(greet.result), 'hello, Ada');
    assert.deepEqual(asked.map((a) => a.message), ['Who is there?']);
    assert.equal(asked[0]!.toolCallId, greet.toolCallId);
  } finally {
    await host.close();
  }
});

test('auto era over Streamable HTTP: serve --http (2026) gets the routing headers and no session', { timeout: 120_000 }, async () => {
  const { serveFixtureHost } = await import('../serve/fixture-host.ts');
  const served = await serveFixtureHost();
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  const wire: WireFrame[] = [];
  try {
    await host.connectServer({ id: 's', url: served.serving.url, protocolEra: 'auto', wireLog: (f) => void wire.push(f) });
    assert.ok(host.listTools().some((t) => t.name === 's--progressive'));
    // serve refuses a 2026 request without Mcp-Method / Mcp-Name (-32020): the call going through says they were sent.
    const call = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 's--progressive', input: { steps: 1 } });
    assert.equal(resultText(call.result), 'nobody asked');
    assert.equal(served.serving.sessionCount(), 0, 'no 2025 session was opened');
    assert.ok(!wire.some((f) => f.direction === 'out' && method(f) === 'initialize'));
  } finally {
    await host.close();
    await served.close();
  }
});
