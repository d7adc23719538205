/**
 * The code_execution description: a short usage guide first; full declarations while they fit,
 * then full declarations for as many tools as fit `maxDescriptionChars` (24,000 by default) and
 * one-line summaries for the rest, then a compact name-and-summary list — with 300 tools
 * it stays within its budget, and a script in either language finds any tool with `searchTools`, reads
 * its declaration with `describe` and calls it. The two helpers are not tool calls: nothing is
 * dispatched, no lifecycle event, nothing in `calls`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ToolHost } from '../../src/host/tool-host.ts';
import { registerCodeExecution, type CodeExecution } from '../../src/code-execution/index.ts';
import { BACKGROUND_GUIDE, DEFAULT_DESCRIPTION_CHARS, describeCodeExecution, USAGE_GUIDE } from '../../src/code-execution/description.ts';
import { searchTools, summaryOf } from '../../src/code-execution/tool-search.ts';
import type { HostLifecycleEvent } from '../../src/lifecycle/events.ts';
import type { RegisteredTool } from '../../src/host/types.ts';
import { runPython, typeCheck } from '../runtime/declarations/helpers.ts';

const DOMAINS = ['crm', 'billing', 'support', 'docs', 'calendar', 'storage', 'analytics', 'deploy', 'search', 'chat'];
const VERBS = ['get', 'list', 'create', 'update', 'delete', 'archive', 'export', 'import', 'sync', 'count'];
const NOUNS = ['contact', 'invoice', 'ticket'];

/** 300 tools with real-looking names, descriptions and schemas. */
function manyTools(): { name: string; description: string; inputSchema: Record<string, unknown> }[] {
  const out = [];
  for (const d of DOMAINS) {
    for (const v of VERBS) {
      for (const n of NOUNS) {
        out.push({
          name: `${d}--${v}_${n}`,
          description: `${v[0]!.toUpperCase()}${v.slice(1)} a ${n} in the ${d} system. Returns the ${n} record with its id, owner, status and timestamps; fails when the ${n} does not exist or you lack access.`,
          inputSchema: {
            type: 'object',
            properties: {
              id: { type: 'string', description: `The ${n} id` },
              fields: { type: 'array', items: { type: 'string' }, description: 'Fields to include' },
              dryRun: { type: 'boolean', default: false },
            },
            required: ['id'],
          },
        });
      }
    }
  }
  return out;
}

test('the usage guide is short and comes first', () => {
  assert.ok(USAGE_GUIDE.length <= 600, `the guide is ${USAGE_GUIDE.length} characters`);
  const text = describeCodeExecution([], ['javascript', 'python'], { defaultMs: 30_000, maxMs: 120_000 });
  assert.ok(text.startsWith(USAGE_GUIDE));
  assert.match(USAGE_GUIDE, /loop, filter/);
  assert.match(USAGE_GUIDE, /only what the answer needs/);
  assert.match(USAGE_GUIDE, /inspect/);
});

test('a few tools: full declarations, describe and searchTools declared in both languages; the TypeScript type-checks', () => {
  const tools = manyTools().slice(0, 3) as unknown as RegisteredTool[];
  const text = describeCodeExecution(tools, ['javascript', 'python'], { defaultMs: 30_000, maxMs: 120_000 });
  assert.match(text, /"crm--get_contact"\(args: \{/);
  assert.match(text, /declare function describe\(args: string\): Promise<string>;/);
  assert.match(text, /declare function searchTools\(args: string\): Promise<\{ name: string; summary: string \}\[\]>;/);
  assert.match(text, /async def describe\(args: str\) -> str:/);
  const ts = /```ts\n([\s\S]*?)\n```/.exec(text)![1]!;
  const use = 'async function f() { const d: string = await describe("x"); const s = await searchTools("q"); return s[0]!.name + d; }\nexport {};';
  assert.deepEqual(typeCheck({ 'decl.d.ts': ts, 'use.ts': `/// <reference path="decl.d.ts" />\n${use}` }), { 'decl.d.ts': [], 'use.ts': [] });
  const py = /```python\n([\s\S]*?)\n```/.exec(text)![1]!;
  const [r] = runPython([{ source: py, probe: 'result = [describe.__name__, searchTools.__name__, tools.crm__get_contact.__name__]' }]);
  assert.deepEqual(r!.output, ['describe', 'searchTools', 'crm__get_contact'], r!.error ?? '');
});

test('past the budget, as many tools as fit keep full declarations and the rest get summaries; both still type-check and import', () => {
  const tools = manyTools().slice(0, 60) as unknown as RegisteredTool[];
  const full = describeCodeExecution(tools, ['javascript', 'python'], { defaultMs: 30_000, maxMs: 120_000, maxChars: Infinity });
  const maxChars = Math.floor(full.length / 2);
  const text = describeCodeExecution(tools, ['javascript', 'python'], { defaultMs: 30_000, maxMs: 120_000, maxChars });
  assert.ok(text.length <= maxChars, `${text.length} > ${maxChars}`);
  const ts = /```ts\n([\s\S]*?)\n```/.exec(text)![1]!;
  const declared = tools.filter((t) => ts.includes(`${JSON.stringify(t.name)}(args`));
  const summarized = /(\d+) more tools, too many to declare here/.exec(text);
  assert.ok(summarized, 'the rest are listed');
  assert.ok(declared.length >= 10 && declared.length < tools.length, `${declared.length} declared`);
  assert.equal(Number(summarized[1]), tools.length - declared.length);
  // Every tool is either declared or summarized, never both.
  for (const t of tools) assert.equal(declared.includes(t) ? 1 : 0, text.includes(`\n${t.name}: `) ? 0 : 1, t.name);
  assert.deepEqual(typeCheck({ 'decl.d.ts': ts, 'use.ts': '/// <reference path="decl.d.ts" />\nasync function f() { return describe("x"); }\nexport {};' }), { 'decl.d.ts': [], 'use.ts': [] });
  const py = /```python\n([\s\S]*?)\n```/.exec(text)![1]!;
  const [r] = runPython([{ source: py, probe: 'result = [describe.__name__]' }]);
  assert.deepEqual(r!.output, ['describe'], r!.error ?? '');
  // One more character of budget never declares fewer tools.
  const roomier = describeCodeExecution(tools, ['javascript', 'python'], { defaultMs: 30_000, maxMs: 120_000, maxChars: maxChars + 2000 });
  assert.ok(tools.filter((t) => roomier.includes(`${JSON.stringify(t.name)}(args`)).length >= declared.length);
});

test('300 tools in 8 KB: the description stays within it in every language combination and names every tool', () => {
  const tools = manyTools() as unknown as RegisteredTool[];
  for (const languages of [['javascript', 'python'], ['javascript'], ['python']] as const) {
    const text = describeCodeExecution(tools, languages, { defaultMs: 30_000, maxMs: 120_000, maxChars: 8192 });
    assert.ok(text.length <= 8192, `${languages}: ${text.length} characters`);
    assert.match(text, /300 tools, too many to declare here: listed by name, grouped by server/);
    assert.match(text, /await describe\("name"\)/);
    // Every tool is named (grouped by server when summaries no longer fit).
    for (const t of tools) {
      const [server, rest] = t.name.split('--');
      assert.ok(text.includes(t.name) || new RegExp(`${server}--: .*\\b${rest}\\b`).test(text), `${t.name} is missing`);
    }
  }
  // A larger budget keeps summaries; a smaller one still fits.
  const roomy = describeCodeExecution(tools.slice(0, 40), ['javascript'], { defaultMs: 30_000, maxMs: 120_000, maxChars: 9000 });
  assert.ok(roomy.length <= 9000);
  assert.match(roomy, /crm--archive_contact: Archive a contact in the crm system\./);
  const tiny = describeCodeExecution(tools, ['javascript'], { defaultMs: 30_000, maxMs: 120_000, maxChars: 3000 });
  assert.ok(tiny.length <= 3000, `${tiny.length}`);
  assert.match(tiny, /… and \d+ more \(searchTools finds them\)/);
});

test('searchTools ranks name words first, then description words; summaries are one sentence', () => {
  const tools = manyTools();
  const found = searchTools(tools, 'refund billing invoice export');
  assert.equal(found[0]!.name, 'billing--export_invoice');
  assert.equal(found.length, 10);
  assert.deepEqual(searchTools(tools, '   '), []);
  assert.equal(summaryOf('First sentence. Second one.'), 'First sentence.');
  assert.equal(summaryOf('x'.repeat(300), 50).length, 50);
});

for (const language of ['javascript', 'python'] as const) {
  describe(`a 300-tool host (${language})`, () => {
    let host: ToolHost;
    let ce: CodeExecution;
    const events: HostLifecycleEvent[] = [];
    const called: unknown[] = [];
    before(() => {
      host = new ToolHost({ logger: pino({ level: 'silent' }) });
      for (const t of manyTools()) {
        host.registerTool({ ...t, classes: ['shell'], handler: async (args) => (called.push({ tool: t.name, args }), { content: [{ type: 'text', text: JSON.stringify({ tool: t.name, id: args.id }) }] }) });
      }
      host.on('lifecycle', (e) => events.push(e));
      ce = registerCodeExecution(host, { languages: [language] });
    });
    after(async () => {
      await ce.close();
      await host.close();
    });

    const SCRIPT = {
      javascript: `const hits = await searchTools('export invoice billing');
const decl = await describe(hits[0].name);
let unknown;
try { await describe('billing--export_invoicez'); } catch (e) { unknown = e.message; }
const r = await tools[hits[0].name]({ id: 'inv-7' });
return { first: hits[0], decl, unknown, r, viaIdentifier: (await describe('billing__export_invoice')) === decl };`,
      python: `hits = await searchTools("export invoice billing")
decl = await describe(hits[0]["name"])
try:
    await describe("billing--export_invoicez")
except Exception as e:
    unknown = str(e)
r = await tools[hits[0]["name"]]({"id": "inv-7"})
{"first": hits[0], "decl": decl, "unknown": unknown, "r": r, "viaIdentifier": (await describe("billing__export_invoice")) == decl}`,
    };

    test('the description is within its default budget; a script finds, describes and calls a tool; the helpers are not calls', async () => {
      const listing = host.listTools().find((t) => t.name === 'code_execution')!;
      assert.ok(listing.description.length <= DEFAULT_DESCRIPTION_CHARS, `${listing.description.length}`);
      assert.ok(!listing.description.includes('"billing--export_invoice"('), 'full declarations are not in the compact description');
      events.length = 0;
      const inferenceId = host.beginInference({ conversationId: `many-${language}` });
      const outcome = await host.dispatch({ inferenceId, name: 'code_execution', input: { code: SCRIPT[language], language } });
      const env = outcome.result.structuredContent as any;
      assert.equal(env.ok, true, JSON.stringify(env));
      assert.equal(env.value.first.name, 'billing--export_invoice');
      assert.match(env.value.first.summary, /^Export a invoice in the billing system\.$/);
      if (language === 'javascript') assert.match(env.value.decl, /"billing--export_invoice"\(args: \{[\s\S]*id: string;/);
      else assert.match(env.value.decl, /async def billing__export_invoice\(args: BillingExportInvoiceArgs\) -> Any:/);
      assert.match(env.value.unknown, /No tool named "billing--export_invoicez"\. Closest: billing--export_invoice/);
      assert.deepEqual(env.value.r, { tool: 'billing--export_invoice', id: 'inv-7' });
      assert.equal(env.value.viaIdentifier, true);
      // Only the one real call is a call: in the ledger, in the lifecycle, at the tool.
      assert.deepEqual(env.calls.map((c: any) => c.name), ['billing--export_invoice']);
      const tools = [...new Set(events.map((e) => e.tool))].sort();
      assert.deepEqual(tools, ['billing--export_invoice', 'code_execution']);
      assert.deepEqual(called, [{ tool: 'billing--export_invoice', args: { id: 'inv-7' } }]);
    });
  });
}

test('the background guide is short, follows the usage guide and names wait, status and cancel', () => {
  assert.ok(BACKGROUND_GUIDE.length <= 160, `the background guide is ${BACKGROUND_GUIDE.length} characters`);
  const text = describeCodeExecution([], ['javascript'], { defaultMs: 30_000, maxMs: 120_000 });
  assert.ok(text.indexOf(BACKGROUND_GUIDE) > text.indexOf(USAGE_GUIDE));
  for (const word of ['background: true', 'wait_ms', '"wait"|"status"|"cancel"', 'scriptId']) assert.ok(BACKGROUND_GUIDE.includes(word), word);
});
