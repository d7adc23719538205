/**
 * `new ToolHost({ serverRequests })`: the client capabilities toolcell declares, the handlers
 * reached by real servers' requests (server-everything's elicitation, sampling and roots
 * tools; an SDK McpServer over stdio and stateless Streamable HTTP), the call each request is
 * attributed to, SEP-1034 defaults, SEP-1330 schema forms passed intact, and the -32601 a
 * server gets for a capability without a handler.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { ToolHost, type ServerRequestContext, type ServerRequestHandlers } from '../../src/index.ts';
import { resultText } from '../../src/host/results.ts';
import { officialServer } from '../real-servers/servers.ts';
import { waitUntil } from '../helpers/peers.ts';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
// @ts-expect-error a plain .mjs fixture, no declarations
import { REQUESTED_SCHEMA } from '../mcpl/fixtures/asking-schema.mjs';

const silent = () => pino({ level: 'silent' });
const ASKING = fileURLToPath(new URL('../mcpl/fixtures/asking-server.mjs', import.meta.url));

test('server-everything with all three handlers: its elicitation, sampling and roots tools are listed and reach the handlers, attributed to the call', async () => {
  const seen: { kind: string; ctx: ServerRequestContext }[] = [];
  const serverRequests: ServerRequestHandlers = {
    elicitation: async (_params, ctx) => {
      seen.push({ kind: 'elicitation', ctx });
      return { action: 'accept', content: { name: 'Grace' } };
    },
    sampling: async (params, ctx) => {
      seen.push({ kind: 'sampling', ctx });
      return { role: 'assistant', model: 'test-model', content: { type: 'text', text: `sampled ${params.maxTokens}` } };
    },
    roots: async (ctx) => {
      seen.push({ kind: 'roots', ctx });
      return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
    },
  };
  const host = new ToolHost({ logger: silent(), serverRequests });
  try {
    const connection = await host.connectServer(officialServer('everything', 'ev').config);
    assert.equal(connection.protocolVersion, '2025-11-25');
    const names = await waitUntil(() => {
      const listed = host.listTools().map((t) => t.name);
      return listed.includes('ev--trigger-elicitation-request') && listed.includes('ev--get-roots-list') ? listed : undefined;
    }, 'capability tools listed');
    assert.ok(names.includes('ev--trigger-sampling-request'));
    const inferenceId = host.beginInference({ conversationId: 'conv-1' });
    const elicited = await host.dispatch({ inferenceId, name: 'ev--trigger-elicitation-request', input: {}, modelCallId: 'm1' });
    assert.equal(elicited.status, 'completed');
    assert.match(resultText(elicited.result), /Grace/);
    const sampled = await host.dispatch({ inferenceId, name: 'ev--trigger-sampling-request', input: { prompt: 'hi', maxTokens: 7 } });
    assert.match(resultText(sampled.result), /sampled 7/);
    const roots = await host.dispatch({ inferenceId, name: 'ev--get-roots-list', input: {} });
    assert.match(resultText(roots.result), /file:\/\/\/work\/project/);
    const elicitation = seen.find((s) => s.kind === 'elicitation')!;
    assert.equal(elicitation.ctx.serverId, 'ev');
    assert.equal(elicitation.ctx.conversationId, 'conv-1');
    assert.equal(elicitation.ctx.toolCallId, elicited.toolCallId);
    assert.equal(elicitation.ctx.modelCallId, 'm1');
    assert.equal(elicitation.ctx.origin, 'model');
    assert.equal(elicitation.ctx.parentToolCallId, undefined);
    assert.equal(seen.find((s) => s.kind === 'sampling')!.ctx.toolCallId, sampled.toolCallId);
  } finally {
    await host.close();
  }
});

async function startStateless(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [ASKING], { env: { PATH: process.env.PATH ?? '', TOOLCELL_ASK_HTTP: 'stateless' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return {
    url: (JSON.parse(line) as { listening: string }).listening,
    async stop() {
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    },
  };
}

test('an SDK McpServer over stdio: the elicitation schema reaches the handler intact (SEP-1330) and omitted fields get their defaults (SEP-1034)', async () => {
  const received: ElicitRequest['params'][] = [];
  const host = new ToolHost({
    logger: silent(),
    serverRequests: {
      elicitation: async (params, ctx) => {
        received.push(params);
        assert.equal(ctx.conversationId, 'c');
        return { action: 'accept', content: { tier: 'pro', size: 'l' } };
      },
    },
  });
  try {
    await host.connectServer({ id: 'ask', command: process.execPath, args: [ASKING] });
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'ask--ask', input: {} });
    assert.equal(outcome.status, 'completed', resultText(outcome.result));
    assert.deepEqual((received[0] as { requestedSchema?: unknown }).requestedSchema, REQUESTED_SCHEMA);
    const { answer } = JSON.parse(resultText(outcome.result));
    assert.deepEqual(answer, { action: 'accept', content: { tier: 'pro', size: 'l', name: 'Ada', toppings: ['cheese'], count: 2 } });
  } finally {
    await host.close();
  }
});

// A stateless SDK server cannot take the answer to its own request on a later POST (a new
// server instance each time), so this one is list-and-call: the GET stream answered 404 and
// no session id.
test('a stateless Streamable HTTP server (no session id, GET /mcp 404): connected at 2025-11-25, tools listed and called', async () => {
  const http = await startStateless();
  const host = new ToolHost({ logger: silent() });
  try {
    const connection = await host.connectServer({ id: 'ask', url: http.url });
    assert.equal(connection.protocolVersion, '2025-11-25');
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'ask--plain', input: {} });
    assert.equal(outcome.status, 'completed');
    assert.equal(resultText(outcome.result), 'ok');
  } finally {
    await host.close();
    await http.stop();
  }
});

test('no elicitation handler: no capability is declared and the server gets -32601 naming elicitation', async () => {
  const host = new ToolHost({ logger: silent() });
  try {
    await host.connectServer({ id: 'ask', command: process.execPath, args: [ASKING] });
    const outcome = await host.dispatch({ inferenceId: host.beginInference({ conversationId: 'c' }), name: 'ask--ask', input: {} });
    const { error } = JSON.parse(resultText(outcome.result));
    assert.equal(error.code, -32601);
    assert.match(error.message, /no elicitation capability/);
  } finally {
    await host.close();
  }
});
