/**
 * A task that needs input while it runs (MCP 2025-11-25 tasks, `input_required`): the real
 * server-everything's `simulate-research-query` with `ambiguous: true` sets its task
 * `input_required` and asks for a clarification by `elicitation/create`, queued for the
 * client's `tasks/result`. toolcell delivers it to the host's elicitation handler, told which
 * call it belongs to — by the request's related task, so two task calls in flight to one
 * server each get their own answer — and the task completes with the answer it was given.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { resultText } from '../../src/host/results.ts';
import type { ServerRequestContext } from '../../src/mcpl/client-features/types.ts';
import { officialServer } from '../real-servers/servers.ts';
import { waitUntil } from '../helpers/peers.ts';

const TOOL = 'ev--simulate-research-query';

test('input_required: the task\'s elicitation reaches the handler attributed to its own call, and the task completes with the answer', { timeout: 120_000 }, async () => {
  const asked: { conversationId: string | undefined; toolCallId: string | undefined; relatedTask: unknown; message: string }[] = [];
  const answers: Record<string, string> = { north: 'historical', south: 'current' };
  const host = new ToolHost({
    logger: pino({ level: 'silent' }),
    serverRequests: {
      elicitation: async (params, ctx: ServerRequestContext) => {
        asked.push({ conversationId: ctx.conversationId, toolCallId: ctx.toolCallId, relatedTask: params._meta?.['io.modelcontextprotocol/related-task'], message: params.message });
        const interpretation = ctx.conversationId !== undefined ? answers[ctx.conversationId] : undefined;
        return interpretation ? { action: 'accept', content: { interpretation } } : { action: 'decline' };
      },
    },
  });
  const everything = officialServer('everything', 'ev');
  try {
    await host.connectServer(everything.config);
    await waitUntil(() => host.listTools().some((t) => t.name === TOOL), `${TOOL} listed`, 15_000);
    const progress: Record<string, string[]> = { north: [], south: [] };
    const run = (conversationId: string, topic: string) =>
      host.dispatch({ inferenceId: host.beginInference({ conversationId }), name: TOOL, input: { topic, ambiguous: true }, onProgress: (p) => progress[conversationId]!.push(p.message ?? '') });
    // Two task calls in flight to one server at once: "only one open call" cannot tell them apart.
    const [north, south] = await Promise.all([run('north', 'glaciers'), run('south', 'tides')]);

    assert.equal(north.status, 'completed', resultText(north.result));
    assert.equal(south.status, 'completed', resultText(south.result));
    assert.match(resultText(north.result), /glaciers \(historical\)/);
    assert.match(resultText(south.result), /tides \(current\)/);
    assert.equal(asked.length, 2, JSON.stringify(asked));
    for (const [conversation, outcome] of [['north', north], ['south', south]] as const) {
      const request = asked.find((a) => a.conversationId === conversation);
      assert.ok(request, `an elicitation attributed to ${conversation}: ${JSON.stringify(asked)}`);
      assert.equal(request.toolCallId, outcome.toolCallId);
      assert.ok(request.relatedTask, 'the request named its task');
      // The task's input_required status reached the caller as progress.
      assert.ok(progress[conversation]!.some((m) => /Requesting clarification/.test(m)), JSON.stringify(progress[conversation]));
    }
    assert.ok(everything.wire.frames.some((f) => f.direction === 'in' && (f.message as { method?: string }).method === 'elicitation/create'));
  } finally {
    await host.close();
  }
});
