/**
 * Issue 46 item 5: at 10,000 tools, a change of the tool set costs the host's listing and
 * code_execution's description work in proportion to the change, not to the catalog (the
 * listing was one 17–50 ms step of the event loop: every tool looked up again, in ten passes or
 * so). Pinned by counting work, never by a clock: the tools each build looked up or derived
 * beyond walking the list (`host.listingWork`, the description memo's `lastWork`). And the
 * listing, the description and a run all follow the change at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { textResult } from '../../src/host/results.ts';
import { registerCodeExecution } from '../../src/code-execution/index.ts';

const TOOLS = 10_000;

function builtin(host: ToolHost, name: string): void {
  host.registerTool({ name, description: `${name}: reads, filters and summarizes records of a kind.`, inputSchema: { type: 'object' }, classes: ['files'], handler: async () => textResult(`ok from ${name}`) });
}

test(`at ${TOOLS.toLocaleString('en')} tools, one tool added or removed costs the listing a few lookups; listing, description and run follow it`, async () => {
  const host = new ToolHost({ logger: pino({ level: 'silent' }) });
  for (let i = 0; i < TOOLS; i++) builtin(host, `srv${i % 10}_tool_${i}`);
  const ce = registerCodeExecution(host, { languages: ['javascript'] });
  try {
    const description = () => host.listTools().find((t) => t.name === 'code_execution')!.description;
    assert.match(description(), new RegExp(`${TOOLS} tools, too many to declare here`));
    assert.ok(host.listingWork > TOOLS, 'the first listing derives every tool (and code_execution\'s own)');

    builtin(host, 'added_tool');
    const listing = host.listTools();
    assert.ok(host.listingWork <= 2, `one tool added: ${host.listingWork} tools looked up (a lookup per tool: over ${TOOLS})`);
    assert.ok(listing.some((t) => t.name === 'added_tool'), 'the added tool is listed');
    assert.match(description(), new RegExp(`${TOOLS + 1} tools, too many to declare here`));

    assert.ok(host.registry.removeHostTool('srv3_tool_5003'));
    const after = host.listTools();
    assert.ok(host.listingWork <= 3, `one tool removed: ${host.listingWork} tools looked up`);
    assert.ok(!after.some((t) => t.name === 'srv3_tool_5003'), 'the removed tool is gone');
    assert.equal(after.length, listing.length - 1, 'every other tool stays');
    assert.match(description(), new RegExp(`${TOOLS} tools, too many to declare here`));

    // A script sees the change too: it calls the added tool; the removed one is not bound.
    const inferenceId = host.beginInference({ conversationId: 'c' });
    const code = 'let gone; try { await tools.srv3_tool_5003({}) } catch (e) { gone = e.message } return [await tools.added_tool({}), gone]';
    const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code } });
    assert.equal(outcome.status, 'completed');
    if (outcome.status !== 'completed') return;
    assert.ok(!outcome.result.isError, JSON.stringify(outcome.result));
    const [added, gone] = (outcome.result.structuredContent as { value: [unknown, string] }).value;
    assert.equal(added, 'ok from added_tool');
    assert.match(gone, /srv3_tool_5003 is not a tool/);
  } finally {
    await ce.close();
    await host.close();
  }
});
